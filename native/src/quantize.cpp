// Type traits and the quantizers: ggml's own code, row blocks at a time.
#include <cstring>

#include "cpu/panel.h"
#include "wrappers.h"

namespace jepa {

Napi::Value typeTraits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int64_t t = argInt(info, 0, "type");
  if (t < 0 || t >= GGML_TYPE_COUNT) fail(env, "BAD_TYPE", "unknown ggml type " + std::to_string(t));
  ggml_type type = static_cast<ggml_type>(t);
  const ggml_type_traits* tr = ggml_get_type_traits(type);
  Napi::Object out = Napi::Object::New(env);
  out.Set("name", tr->type_name ? tr->type_name : "");
  out.Set("blockSize", static_cast<double>(tr->blck_size));
  out.Set("typeSize", static_cast<double>(tr->type_size));
  out.Set("isQuantized", tr->is_quantized);
  out.Set("canDequantize", tr->to_float != nullptr);
  out.Set("requiresImatrix", tr->blck_size > 0 && ggml_quantize_requires_imatrix(type));
  return out;
}

static void checkQuantizable(Napi::Env env, ggml_type type, int64_t nrows, int64_t perRow) {
  const ggml_type_traits* tr = ggml_get_type_traits(type);
  if (!tr->blck_size || !tr->type_size) fail(env, "BAD_TYPE", "ggml type " + std::to_string(type) + " was removed");
  if (type != GGML_TYPE_F32 && type != GGML_TYPE_F16 && type != GGML_TYPE_BF16 && !tr->is_quantized)
    fail(env, "BAD_TYPE", std::string("cannot quantize to ") + tr->type_name);
  if (ggml_quantize_requires_imatrix(type))
    fail(env, "BAD_TYPE", std::string(tr->type_name) + " needs an importance matrix");
  if (nrows < 1 || perRow < 1) fail(env, "BAD_ARGUMENT", "rows and row length must be positive");
  if (perRow % tr->blck_size != 0)
    fail(env, "BAD_SHAPE", "a row of " + std::to_string(perRow) + " values is not a multiple of the " + tr->type_name +
                               " block size " + std::to_string(tr->blck_size));
}

// quantize(type, src: Float32Array, nrows, nPerRow) -> Promise<Uint8Array> of nrows * rowSize bytes.
Napi::Value quantize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_type type = argType(info, 0);
  if (info.Length() < 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    fail(env, "BAD_ARGUMENT", "src must be a Float32Array");
  Napi::Float32Array src = info[1].As<Napi::Float32Array>();
  int64_t nrows = argInt(info, 2, "nrows");
  int64_t perRow = argInt(info, 3, "nPerRow");
  checkQuantizable(env, type, nrows, perRow);
  if (static_cast<int64_t>(src.ElementLength()) != nrows * perRow)
    fail(env, "BAD_SHAPE", "src holds " + std::to_string(src.ElementLength()) + " values, not " +
                               std::to_string(nrows) + " x " + std::to_string(perRow));
  size_t outBytes = ggml_row_size(type, perRow) * static_cast<size_t>(nrows);
  Napi::Uint8Array dst = Napi::Uint8Array::New(env, outBytes);
  auto srcRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(src.As<Napi::Object>()));
  auto dstRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(dst.As<Napi::Object>()));
  const float* in = src.Data();
  void* out = dst.Data();
  auto* worker = new PromiseWorker(
      env, [=](PromiseWorker&) { ggml_quantize_chunk(type, in, out, 0, nrows, perRow, nullptr); },
      [srcRef, dstRef](Napi::Env) { return dstRef->Value(); });
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

// dequantize(type, bytes: Uint8Array, n) -> Float32Array of n values.
Napi::Value dequantize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ggml_type type = argType(info, 0);
  if (info.Length() < 2 || !info[1].IsTypedArray()) fail(env, "BAD_ARGUMENT", "bytes must be a typed array");
  Napi::TypedArray bytes = info[1].As<Napi::TypedArray>();
  int64_t n = argInt(info, 2, "n");
  const ggml_type_traits* tr = ggml_get_type_traits(type);
  if (!tr->to_float) fail(env, "BAD_TYPE", std::string("cannot dequantize ") + tr->type_name);
  if (n < 1 || n % tr->blck_size != 0) fail(env, "BAD_SHAPE", "n must be a positive multiple of the block size");
  if (bytes.ByteLength() < ggml_row_size(type, n)) fail(env, "BAD_SHAPE", "too few bytes for " + std::to_string(n) + " values");
  Napi::Float32Array out = Napi::Float32Array::New(env, static_cast<size_t>(n));
  const uint8_t* base = static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset();
  tr->to_float(base, out.Data(), n);
  return out;
}

// panelPack(src: Tensor, dst: Tensor, scales?: Tensor): repacks an f32 / f16 / q8_0 / q4_0 / q4_K matrix, or a
// q8_row one (I8 with its F32 row scales), held in host memory into the CPU panel layout of
// Context.panelMulMat; dst is an I8 tensor of panelBytes(type, rows, k). The checks, then the packing
// as a job that holds the tensors' contexts (and so their memory) while it runs.
static std::function<void()> panelJob(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Tensor* srcW = argTensor(info, 0, "src");
  Tensor* dstW = argTensor(info, 1, "dst");
  ggml_tensor* src = srcW->tensor(env);
  ggml_tensor* dst = dstW->tensor(env);
  if (ggml_n_dims(src) != 2 || !ggml_is_contiguous(src)) fail(env, "BAD_SHAPE", describe(src) + " is not a contiguous 2-D matrix");
  const int64_t bytes = panelBytes(src->type, src->ne[1], src->ne[0]);
  if (bytes < 0) fail(env, "BAD_SHAPE", describe(src) + " has no panel form (f32, f16, q8_0, q4_0, q4_K or q8_row with rows % 16 == 0)");
  if (dst->type != GGML_TYPE_I8 || ggml_nelements(dst) != bytes || !ggml_is_contiguous(dst))
    fail(env, "BAD_SHAPE", describe(dst) + " is not an I8 tensor of " + std::to_string(bytes) + " bytes");
  for (ggml_tensor* t : {src, dst})
    if (!t->data || !t->buffer || !ggml_backend_buffer_is_host(t->buffer))
      fail(env, "BAD_ARGUMENT", describe(t) + " is not in host memory");
  std::vector<std::shared_ptr<ContextRes>> keep{srcW->owner(), dstW->owner()};
  if (src->type == GGML_TYPE_I8) {
    Tensor* scalesW = info.Length() > 2 && !info[2].IsUndefined() ? argTensor(info, 2, "scales") : nullptr;
    ggml_tensor* scales = scalesW ? scalesW->tensor(env) : nullptr;
    if (!scales || scales->type != GGML_TYPE_F32 || ggml_nelements(scales) != src->ne[1] || !ggml_is_contiguous(scales))
      fail(env, "BAD_ARGUMENT", "an I8 (q8_row) matrix needs its F32 scales, one per row (" + std::to_string(src->ne[1]) + ")");
    if (!scales->data || !scales->buffer || !ggml_backend_buffer_is_host(scales->buffer)) fail(env, "BAD_ARGUMENT", describe(scales) + " is not in host memory");
    keep.push_back(scalesW->owner());
    return [src, dst, scales, keep] {
      panelPackRows(static_cast<const int8_t*>(src->data), static_cast<const float*>(scales->data), src->ne[1], src->ne[0], dst->data);
    };
  }
  return [src, dst, keep] { panelPack(src->type, src->data, src->ne[1], src->ne[0], dst->data); };
}

Napi::Value packPanel(const Napi::CallbackInfo& info) {
  panelJob(info)();
  return info.Env().Undefined();
}

// panelPackAsync(src, dst, scales?) -> Promise<void>: panelPack on libuv's pool, so that a model's load
// leaves the event loop free (a server answers /health while a large model packs).
Napi::Value packPanelAsync(const Napi::CallbackInfo& info) {
  auto job = panelJob(info);
  auto* worker = new PromiseWorker(info.Env(), [job](PromiseWorker&) { job(); }, nullptr);
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

// panelBytes(type, rows, k): bytes of the panel form of a matrix.
Napi::Value panelBytesFor(const Napi::CallbackInfo& info) {
  ggml_type type = argType(info, 0);
  const int64_t bytes = panelBytes(type, argInt(info, 1, "rows"), argInt(info, 2, "k"));
  if (bytes < 0) fail(info.Env(), "BAD_SHAPE", std::string(ggml_type_name(type)) + " has no panel form of that shape (f32, f16, q8_0, q4_0 or q4_K; rows % 16 == 0)");
  return Napi::Number::New(info.Env(), static_cast<double>(bytes));
}

}  // namespace jepa
