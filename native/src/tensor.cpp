#include <cstring>

#include "wrappers.h"

namespace jepa {

Napi::Function Tensor::define(Napi::Env env) {
  return DefineClass(env, "Tensor",
                     {
                         InstanceAccessor<&Tensor::type>("type"),
                         InstanceAccessor<&Tensor::ne>("ne"),
                         InstanceAccessor<&Tensor::nb>("nb"),
                         InstanceAccessor<&Tensor::nbytes>("nbytes"),
                         InstanceAccessor<&Tensor::getName, &Tensor::setName>("name"),
                         InstanceAccessor<&Tensor::op>("op"),
                         InstanceAccessor<&Tensor::isContiguous>("isContiguous"),
                         InstanceAccessor<&Tensor::hasData>("hasData"),
                         InstanceAccessor<&Tensor::repacked>("repacked"),
                         InstanceAccessor<&Tensor::bufferType>("bufferType"),
                         InstanceMethod<&Tensor::setInput>("setInput"),
                         InstanceMethod<&Tensor::setOutput>("setOutput"),
                         InstanceMethod<&Tensor::setPrecF32>("setPrecF32"),
                         InstanceMethod<&Tensor::set>("set"),
                         InstanceMethod<&Tensor::get>("get"),
                         InstanceMethod<&Tensor::bind>("bind"),
                         InstanceMethod<&Tensor::loadFrom>("loadFrom"),
                         InstanceMethod<&Tensor::dispose>("dispose"),
                     });
}

struct TensorRef {
  std::shared_ptr<ContextRes> owner;
  ggml_tensor* t;
};

Napi::Object Tensor::wrap(Napi::Env env, const std::shared_ptr<ContextRes>& owner, ggml_tensor* t) {
  TensorRef ref{owner, t};
  return addonData(env).tensorCtor.New({Napi::External<TensorRef>::New(env, &ref)});
}

Tensor::Tensor(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Tensor>(info) {
  if (info.Length() != 1 || !info[0].IsExternal())
    fail(info.Env(), "BAD_ARGUMENT", "tensors are made by Context methods (newTensor, mulMat, ...)");
  TensorRef* ref = info[0].As<Napi::External<TensorRef>>().Data();
  owner_ = ref->owner;
  t_ = ref->t;
}

ggml_tensor* Tensor::tensor(Napi::Env env) const {
  if (!owner_) fail(env, "DISPOSED", "the tensor was disposed");
  return t_;
}

Tensor* argOptionalTensor(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || info[i].IsNull() || info[i].IsUndefined()) return nullptr;
  return argTensor(info, i, what);
}

Tensor* argTensor(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i) fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be a Tensor");
  return valueTensor(info.Env(), info[i], what);
}

Tensor* valueTensor(Napi::Env env, Napi::Value v, const char* what) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(addonData(env).tensorCtor.Value()))
    fail(env, "BAD_ARGUMENT", std::string(what) + " must be a Tensor");
  Tensor* t = Tensor::Unwrap(v.As<Napi::Object>());
  t->tensor(env);
  return t;
}

Napi::Value Tensor::type(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), tensor(info.Env())->type); }

static Napi::Value dims(Napi::Env env, const int64_t* values) {
  Napi::Array out = Napi::Array::New(env, GGML_MAX_DIMS);
  for (uint32_t i = 0; i < GGML_MAX_DIMS; ++i) out.Set(i, Napi::Number::New(env, static_cast<double>(values[i])));
  return out;
}

Napi::Value Tensor::ne(const Napi::CallbackInfo& info) { return dims(info.Env(), tensor(info.Env())->ne); }

Napi::Value Tensor::nb(const Napi::CallbackInfo& info) {
  ggml_tensor* t = tensor(info.Env());
  int64_t nb[GGML_MAX_DIMS];
  for (int i = 0; i < GGML_MAX_DIMS; ++i) nb[i] = static_cast<int64_t>(t->nb[i]);
  return dims(info.Env(), nb);
}

Napi::Value Tensor::nbytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(ggml_nbytes(tensor(info.Env()))));
}

Napi::Value Tensor::getName(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), tensor(info.Env())->name); }

void Tensor::setName(const Napi::CallbackInfo& info, const Napi::Value& value) {
  if (!value.IsString()) fail(info.Env(), "BAD_ARGUMENT", "a tensor name must be a string");
  std::string name = value.As<Napi::String>().Utf8Value();
  if (name.size() >= GGML_MAX_NAME)
    fail(info.Env(), "BAD_ARGUMENT", "tensor name '" + name + "' is longer than " + std::to_string(GGML_MAX_NAME - 1));
  ggml_set_name(tensor(info.Env()), name.c_str());
}

Napi::Value Tensor::op(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), ggml_op_desc(tensor(info.Env()))); }

Napi::Value Tensor::isContiguous(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), ggml_is_contiguous(tensor(info.Env())));
}

Napi::Value Tensor::hasData(const Napi::CallbackInfo& info) {
  ggml_tensor* t = tensor(info.Env());
  return Napi::Boolean::New(info.Env(), t->buffer != nullptr && t->data != nullptr);
}

static bool inRepackBuffer(const ggml_tensor* t) {
  return t->buffer && std::strcmp(ggml_backend_buft_name(ggml_backend_buffer_get_type(t->buffer)), "CPU_REPACK") == 0;
}

// In a repacking buffer, whether ggml found an interleaved layout for this tensor's type and shape.
Napi::Value Tensor::repacked(const Napi::CallbackInfo& info) {
  ggml_tensor* t = tensor(info.Env());
  return Napi::Boolean::New(info.Env(), inRepackBuffer(t) && t->extra != nullptr);
}

Napi::Value Tensor::bufferType(const Napi::CallbackInfo& info) {
  ggml_tensor* t = tensor(info.Env());
  if (!t->buffer) return info.Env().Null();
  return Napi::String::New(info.Env(), ggml_backend_buft_name(ggml_backend_buffer_get_type(t->buffer)));
}

void Tensor::setInput(const Napi::CallbackInfo& info) { ggml_set_input(tensor(info.Env())); }
void Tensor::setOutput(const Napi::CallbackInfo& info) { ggml_set_output(tensor(info.Env())); }

void Tensor::setPrecF32(const Napi::CallbackInfo& info) {
  ggml_tensor* t = tensor(info.Env());
  if (t->op == GGML_OP_MUL_MAT)
    ggml_mul_mat_set_prec(t, GGML_PREC_F32);
  else if (t->op == GGML_OP_FLASH_ATTN_EXT)
    ggml_flash_attn_ext_set_prec(t, GGML_PREC_F32);
  else
    fail(info.Env(), "BAD_ARGUMENT", "setPrecF32 applies to mul_mat and flash_attn_ext, not " + describe(t));
}

// The raw bytes of a typed array or ArrayBuffer view argument.
static std::pair<uint8_t*, size_t> bytesOf(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsTypedArray())
    fail(info.Env(), "BAD_ARGUMENT", "data must be a typed array");
  Napi::TypedArray arr = info[i].As<Napi::TypedArray>();
  uint8_t* base = static_cast<uint8_t*>(arr.ArrayBuffer().Data()) + arr.ByteOffset();
  return {base, arr.ByteLength()};
}

static void checkAccess(Napi::Env env, ggml_tensor* t, int64_t offset, size_t size) {
  if (!t->buffer || !t->data) fail(env, "NO_DATA", "tensor " + describe(t) + " has no memory yet (allocate it first)");
  size_t total = ggml_nbytes(t);
  if (offset < 0 || static_cast<size_t>(offset) > total || size > total - static_cast<size_t>(offset))
    fail(env, "OUT_OF_RANGE", std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                  " do not fit tensor " + describe(t) + " (" + std::to_string(total) + " bytes)");
  if (!ggml_is_contiguous(t))
    fail(env, "NOT_CONTIGUOUS", "tensor " + describe(t) + " is not contiguous");
}

// A repacking buffer converts whole tensors on upload and aborts on anything else.
static void checkRepackUpload(Napi::Env env, ggml_tensor* t, int64_t offset, size_t size) {
  if (!inRepackBuffer(t)) return;
  if (!t->extra) fail(env, "NOT_REPACKABLE", "ggml has no repacked layout for " + describe(t));
  if (offset != 0 || size != ggml_nbytes(t))
    fail(env, "BAD_ARGUMENT", "a repacked tensor " + describe(t) + " is written whole, from offset 0");
}

// set(typedArray, byteOffset = 0): copies the array's bytes straight into the tensor.
void Tensor::set(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_tensor* t = tensor(env);
  auto [data, size] = bytesOf(info, 0);
  int64_t offset = info.Length() > 1 ? argInt(info, 1, "byteOffset") : 0;
  checkAccess(env, t, offset, size);
  checkRepackUpload(env, t, offset, size);
  ggml_backend_tensor_set(t, data, static_cast<size_t>(offset), size);
}

// get(typedArray, byteOffset = 0): fills the array from the tensor; returns it.
Napi::Value Tensor::get(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_tensor* t = tensor(env);
  auto [data, size] = bytesOf(info, 0);
  int64_t offset = info.Length() > 1 ? argInt(info, 1, "byteOffset") : 0;
  checkAccess(env, t, offset, size);
  if (inRepackBuffer(t)) fail(env, "BAD_ARGUMENT", "a repacked tensor " + describe(t) + " cannot be read back");
  ggml_backend_tensor_get(t, data, static_cast<size_t>(offset), size);
  return info[0];
}

// bind(buffer, byteOffset): places the tensor at that offset of an existing buffer (zero-copy weights).
void Tensor::bind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_tensor* t = tensor(env);
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(addonData(env).bufferCtor.Value()))
    fail(env, "BAD_ARGUMENT", "bind needs a Buffer");
  auto buf = Buffer::Unwrap(info[0].As<Napi::Object>())->res(env);
  int64_t offset = argInt(info, 1, "byteOffset");
  if (t->buffer || t->data) fail(env, "ALREADY_ALLOCATED", "tensor " + describe(t) + " already has memory");
  if (t->view_src) fail(env, "BAD_ARGUMENT", "tensor " + describe(t) + " is a view; bind its source");
  size_t size = ggml_backend_buffer_get_size(buf->buffer);
  size_t need = ggml_backend_buffer_get_alloc_size(buf->buffer, t);
  size_t align = ggml_backend_buffer_get_alignment(buf->buffer);
  if (offset < 0 || static_cast<size_t>(offset) > size || need > size - static_cast<size_t>(offset))
    fail(env, "OUT_OF_RANGE", "tensor " + describe(t) + " (" + std::to_string(need) + " bytes) does not fit at offset " +
                                  std::to_string(offset) + " of a " + std::to_string(size) + "-byte buffer");
  char* addr = static_cast<char*>(ggml_backend_buffer_get_base(buf->buffer)) + offset;
  if (reinterpret_cast<uintptr_t>(addr) % align != 0)
    fail(env, "MISALIGNED", "tensor " + describe(t) + " at offset " + std::to_string(offset) + " is not aligned to " +
                                std::to_string(align) + " bytes");
  if (ggml_backend_tensor_alloc(buf->buffer, t, addr) != GGML_STATUS_SUCCESS)
    fail(env, "NATIVE", "ggml could not place tensor " + describe(t));
  owner_->addBuffer(buf);
}

// loadFrom(mapping, fileOffset): copies the tensor's bytes from a mapped file (GPU weight upload).
void Tensor::loadFrom(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_tensor* t = tensor(env);
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(addonData(env).mappingCtor.Value()))
    fail(env, "BAD_ARGUMENT", "loadFrom needs a Mapping");
  auto m = Mapping::Unwrap(info[0].As<Napi::Object>())->res(env);
  int64_t offset = argInt(info, 1, "fileOffset");
  size_t size = ggml_nbytes(t);
  if (offset < 0 || static_cast<uint64_t>(offset) > m->length || size > m->length - static_cast<uint64_t>(offset))
    fail(env, "OUT_OF_RANGE", "tensor " + describe(t) + " at file offset " + std::to_string(offset) + " lies outside " +
                                  m->path);
  checkAccess(env, t, 0, size);
  checkRepackUpload(env, t, 0, size);
  ggml_backend_tensor_set(t, static_cast<char*>(m->addr) + offset, 0, size);
}

void Tensor::dispose(const Napi::CallbackInfo&) {
  owner_.reset();
  t_ = nullptr;
}

}  // namespace jepa
