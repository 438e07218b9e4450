#include "cpu_backend.h"
#include "wrappers.h"

namespace jepa {

Napi::Function Backend::define(Napi::Env env) {
  return DefineClass(env, "Backend",
                     {
                         InstanceAccessor<&Backend::name>("name"),
                         InstanceAccessor<&Backend::deviceName>("deviceName"),
                         InstanceAccessor<&Backend::isCpu>("isCpu"),
                         InstanceAccessor<&Backend::getThreads, &Backend::setThreads>("threads"),
                         InstanceAccessor<&Backend::sharedComputeBytes>("sharedComputeBytes"),
                         InstanceMethod<&Backend::supportsOp>("supportsOp"),
                         InstanceMethod<&Backend::bufferTypes>("bufferTypes"),
                         InstanceMethod<&Backend::allocBuffer>("allocBuffer"),
                         InstanceMethod<&Backend::dispose>("dispose"),
                     });
}

// new Backend(deviceName, threads): deviceName as ggml names it ("CPU", "CUDA0").
Backend::Backend(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Backend>(info) {
  Napi::Env env = info.Env();
  std::string devName = argString(info, 0, "device name");
  int64_t threads = argInt(info, 1, "threads");
  if (threads < 1 || threads > 512) fail(env, "BAD_ARGUMENT", "threads must be 1..512, got " + std::to_string(threads));
  ggml_backend_dev_t dev = ggml_backend_dev_by_name(devName.c_str());
  if (!dev) fail(env, "NO_DEVICE", "no ggml device named '" + devName + "' in this build");
  auto res = std::make_shared<BackendRes>();
  res->device = dev;
  res->backend = ggml_backend_dev_init(dev, nullptr);
  if (!res->backend) fail(env, "BACKEND_INIT", "could not initialise a backend on device '" + devName + "'");
  res->isCpu = ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
  res->threads = static_cast<int>(threads);
  res->computeThread = res->isCpu ? cpuComputeThread() : std::make_shared<ComputeThread>();
  if (res->isCpu) setCpuThreads(res->backend, res->threads);
  res_ = std::move(res);
}

std::shared_ptr<BackendRes> Backend::res(Napi::Env env) const {
  if (!res_) fail(env, "DISPOSED", "the backend was disposed");
  return res_;
}

Napi::Value Backend::name(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), ggml_backend_name(res(info.Env())->backend));
}

Napi::Value Backend::deviceName(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), ggml_backend_dev_name(res(info.Env())->device));
}

Napi::Value Backend::isCpu(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), res(info.Env())->isCpu); }

Napi::Value Backend::getThreads(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), res(info.Env())->threads);
}

// Bytes of the compute buffer that graphs allocated with {shared: true} take turns in (0 before the first).
Napi::Value Backend::sharedComputeBytes(const Napi::CallbackInfo& info) {
  auto r = res(info.Env());
  std::lock_guard<std::mutex> lock(r->sharedMu);
  return Napi::Number::New(info.Env(), r->shared ? static_cast<double>(ggml_gallocr_get_buffer_size(r->shared, 0)) : 0.0);
}

void Backend::setThreads(const Napi::CallbackInfo& info, const Napi::Value& value) {
  Napi::Env env = info.Env();
  auto r = res(env);
  if (!value.IsNumber()) fail(env, "BAD_ARGUMENT", "threads must be a number");
  int threads = value.As<Napi::Number>().Int32Value();
  if (threads < 1 || threads > 512) fail(env, "BAD_ARGUMENT", "threads must be 1..512, got " + std::to_string(threads));
  std::lock_guard<std::mutex> lock(r->computeMu);
  r->threads = threads;
  if (r->isCpu) setCpuThreads(r->backend, threads);
}

Napi::Value Backend::supportsOp(const Napi::CallbackInfo& info) {
  auto r = res(info.Env());
  Tensor* t = argTensor(info, 0, "tensor");
  return Napi::Boolean::New(info.Env(), ggml_backend_supports_op(r->backend, t->tensor(info.Env())));
}

// The device's own buffer types: the default first, then the CPU's extra (repacking) types.
static std::vector<ggml_backend_buffer_type_t> bufferTypesOf(const BackendRes& r) {
  std::vector<ggml_backend_buffer_type_t> types{ggml_backend_get_default_buffer_type(r.backend)};
  if (r.isCpu) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(r.device);
    using get_extra_t = ggml_backend_buffer_type_t* (*)(ggml_backend_dev_t);
    auto getExtra = reinterpret_cast<get_extra_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
    if (getExtra)
      for (ggml_backend_buffer_type_t* p = getExtra(r.device); p && *p; ++p) types.push_back(*p);
  }
  return types;
}

ggml_backend_buffer_type_t findBufferType(Napi::Env env, const BackendRes& r, const std::string& name) {
  auto types = bufferTypesOf(r);
  if (name.empty()) return types[0];
  std::string known;
  for (auto t : types) {
    if (name == ggml_backend_buft_name(t)) return t;
    known += (known.empty() ? "" : ", ") + std::string(ggml_backend_buft_name(t));
  }
  fail(env, "NO_BUFFER_TYPE", "device '" + std::string(ggml_backend_dev_name(r.device)) + "' has no buffer type '" +
                                  name + "' (it has: " + known + ")");
}

Napi::Value Backend::bufferTypes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto types = bufferTypesOf(*res(env));
  Napi::Array out = Napi::Array::New(env, types.size());
  for (size_t i = 0; i < types.size(); ++i) out.Set(static_cast<uint32_t>(i), ggml_backend_buft_name(types[i]));
  return out;
}

// allocBuffer(bytes, bufferTypeName?) -> Buffer
Napi::Value Backend::allocBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto r = res(env);
  int64_t size = argInt(info, 0, "size");
  if (size < 1) fail(env, "BAD_ARGUMENT", "buffer size must be positive");
  std::string typeName = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
  ggml_backend_buffer_type_t buft = findBufferType(env, *r, typeName);
  auto buf = std::make_shared<BufferRes>();
  buf->buffer = ggml_backend_buft_alloc_buffer(buft, static_cast<size_t>(size));
  if (!buf->buffer)
    fail(env, "OUT_OF_MEMORY", "could not allocate " + std::to_string(size) + " bytes of " + ggml_backend_buft_name(buft));
  return Buffer::wrap(env, std::move(buf));
}

void Backend::dispose(const Napi::CallbackInfo&) { res_.reset(); }

}  // namespace jepa
