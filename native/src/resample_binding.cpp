// The image resampler (image/resample.h) for JavaScript: resize + crop to RGB bytes, or on to
// normalised float planes, on the libuv pool or synchronously. One thread per call.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "common.h"
#include "image/resample.h"

namespace jepa {

namespace {

constexpr double kMaxSide = 65536;

std::string numberText(const Napi::Value& v) {
  return v.IsNumber() ? v.ToString().Utf8Value() : std::string(v.IsUndefined() ? "undefined" : "a non-number");
}

int intField(Napi::Env env, const Napi::Object& obj, const char* key, const std::string& name, double lo, double hi) {
  Napi::Value v = obj.Get(key);
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(d >= lo && d <= hi) || d != std::floor(d))
    fail(env, "BAD_ARGUMENT",
         name + " must be an integer in " + std::to_string(static_cast<int64_t>(lo)) + ".." + std::to_string(static_cast<int64_t>(hi)) +
             ", got " + numberText(v));
  return static_cast<int>(d);
}

struct ParsedJob {
  image::ResampleSpec spec;
  Napi::Object src;  // the Uint8Array the spec reads
};

ParsedJob parseJob(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() || info[0].IsArray() || info[0].IsTypedArray())
    fail(env, "BAD_ARGUMENT", "job must be an object");
  Napi::Object job = info[0].As<Napi::Object>();
  ParsedJob out;
  image::ResampleSpec& s = out.spec;

  Napi::Value src = job.Get("src");
  if (!src.IsTypedArray()) fail(env, "BAD_ARGUMENT", "job.src must be a Uint8Array");
  Napi::TypedArray srcArray = src.As<Napi::TypedArray>();
  if (srcArray.TypedArrayType() != napi_uint8_array && srcArray.TypedArrayType() != napi_uint8_clamped_array)
    fail(env, "BAD_ARGUMENT", "job.src must be a Uint8Array");

  s.width = intField(env, job, "width", "job.width", 1, kMaxSide);
  s.height = intField(env, job, "height", "job.height", 1, kMaxSide);
  Napi::Value channels = job.Get("channels");
  const double c = channels.IsNumber() ? channels.As<Napi::Number>().DoubleValue() : NAN;
  if (c != 1 && c != 3 && c != 4) fail(env, "BAD_ARGUMENT", "job.channels must be 1, 3 or 4, got " + numberText(channels));
  s.channels = static_cast<int>(c);
  s.orientation = job.Get("orientation").IsUndefined() ? 1 : intField(env, job, "orientation", "job.orientation", 1, 8);
  s.outW = intField(env, job, "outWidth", "job.outWidth", 1, kMaxSide);
  s.outH = intField(env, job, "outHeight", "job.outHeight", 1, kMaxSide);

  Napi::Value filter = job.Get("filter");
  const std::string f = filter.IsString() ? filter.As<Napi::String>().Utf8Value() : "";
  if (f == "bilinear") s.filter = image::Filter::Bilinear;
  else if (f == "bicubic") s.filter = image::Filter::Bicubic;
  else fail(env, "BAD_ARGUMENT", "job.filter must be 'bilinear' or 'bicubic'");

  Napi::Value crop = job.Get("crop");
  if (crop.IsUndefined()) {
    s.left = s.top = 0;
    s.cropW = s.outW;
    s.cropH = s.outH;
  } else {
    if (!crop.IsObject() || crop.IsArray()) fail(env, "BAD_ARGUMENT", "job.crop must be an object { left, top, width, height }");
    Napi::Object r = crop.As<Napi::Object>();
    s.left = intField(env, r, "left", "job.crop.left", 0, kMaxSide - 1);
    s.top = intField(env, r, "top", "job.crop.top", 0, kMaxSide - 1);
    s.cropW = intField(env, r, "width", "job.crop.width", 1, kMaxSide);
    s.cropH = intField(env, r, "height", "job.crop.height", 1, kMaxSide);
    if (s.left + s.cropW > s.outW)
      fail(env, "BAD_SHAPE", "job.crop columns " + std::to_string(s.left) + ".." + std::to_string(s.left + s.cropW) +
                                 " leave the " + std::to_string(s.outW) + "-wide output (job.outWidth)");
    if (s.top + s.cropH > s.outH)
      fail(env, "BAD_SHAPE", "job.crop rows " + std::to_string(s.top) + ".." + std::to_string(s.top + s.cropH) + " leave the " +
                                 std::to_string(s.outH) + "-high output (job.outHeight)");
  }

  const uint64_t need = static_cast<uint64_t>(s.width) * s.height * s.channels;
  if (srcArray.ByteLength() != need)
    fail(env, "BAD_SHAPE", "job.src holds " + std::to_string(srcArray.ByteLength()) + " bytes, not width x height x channels = " +
                               std::to_string(s.width) + " x " + std::to_string(s.height) + " x " + std::to_string(s.channels) +
                               " = " + std::to_string(need));
  s.src = static_cast<const uint8_t*>(srcArray.ArrayBuffer().Data()) + srcArray.ByteOffset();
  out.src = srcArray.As<Napi::Object>();
  return out;
}

// JEPA_RESAMPLE_ISA (scalar, avx2 or avx512), read on every call; unset or 'auto' picks the fastest.
image::Isa isaFromEnv(Napi::Env env) {
  const char* name = std::getenv("JEPA_RESAMPLE_ISA");
  if (!name || !*name || std::string(name) == "auto") return image::supportedIsas().front();
  image::Isa isa;
  if (!image::parseIsa(name, &isa))
    fail(env, "BAD_ARGUMENT", std::string("JEPA_RESAMPLE_ISA must be auto, scalar, avx2 or avx512, got '") + name + "'");
  if (!image::isaSupported(isa))
    fail(env, "UNSUPPORTED", std::string("JEPA_RESAMPLE_ISA=") + name + ": this CPU cannot run that kernel");
  return isa;
}

struct NormalizeArgs {
  std::shared_ptr<std::vector<float>> tables;
  Napi::Float32Array out;
  size_t channelStride = 0, offset = 0;
};

NormalizeArgs parseNormalize(const Napi::CallbackInfo& info, const image::ResampleSpec& s) {
  Napi::Env env = info.Env();
  NormalizeArgs a;
  if (info.Length() < 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    fail(env, "BAD_ARGUMENT", "tables must be a Float32Array");
  Napi::Float32Array tables = info[1].As<Napi::Float32Array>();
  if (tables.ElementLength() != 768)
    fail(env, "BAD_SHAPE", "tables must hold 3 x 256 = 768 values, got " + std::to_string(tables.ElementLength()));
  // Copied, so the caller may reuse its tables while the work runs.
  a.tables = std::make_shared<std::vector<float>>(tables.Data(), tables.Data() + 768);
  if (info.Length() < 3 || !info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    fail(env, "BAD_ARGUMENT", "out must be a Float32Array");
  a.out = info[2].As<Napi::Float32Array>();
  const uint64_t planes = static_cast<uint64_t>(s.cropW) * s.cropH;
  const int64_t stride = argInt(info, 3, "channelStride");
  if (stride < 0 || static_cast<uint64_t>(stride) < planes)
    fail(env, "BAD_ARGUMENT", "channelStride must be at least the crop's width x height = " + std::to_string(planes) + ", got " +
                                  std::to_string(stride));
  const int64_t offset = argInt(info, 4, "offset");
  if (offset < 0) fail(env, "BAD_ARGUMENT", "offset must be >= 0, got " + std::to_string(offset));
  const uint64_t need = 2 * static_cast<uint64_t>(stride) + static_cast<uint64_t>(offset) + planes;
  if (a.out.ElementLength() < need)
    fail(env, "BAD_SHAPE", "out holds " + std::to_string(a.out.ElementLength()) + " values; 2 x channelStride + offset + " +
                               std::to_string(s.cropW) + " x " + std::to_string(s.cropH) + " = " + std::to_string(need) + " are written");
  a.channelStride = static_cast<size_t>(stride);
  a.offset = static_cast<size_t>(offset);
  return a;
}

template <class F>
void runOrThrow(Napi::Env env, F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    fail(env, "OUT_OF_MEMORY", "resample: out of memory for its scratch rows");
  }
}

}  // namespace

// resampleU8Sync(job) -> Uint8Array of cropH x cropW x 3 RGB bytes.
Napi::Value resampleU8Sync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ParsedJob job = parseJob(info);
  const image::Isa isa = isaFromEnv(env);
  Napi::Uint8Array dst = Napi::Uint8Array::New(env, static_cast<size_t>(job.spec.cropW) * job.spec.cropH * 3);
  runOrThrow(env, [&] { image::resampleToU8(job.spec, isa, dst.Data()); });
  return dst;
}

// resampleU8(job) -> Promise<Uint8Array>, computed on the libuv pool.
Napi::Value resampleU8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ParsedJob job = parseJob(info);
  const image::Isa isa = isaFromEnv(env);
  Napi::Uint8Array dst = Napi::Uint8Array::New(env, static_cast<size_t>(job.spec.cropW) * job.spec.cropH * 3);
  auto srcRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(job.src));
  auto dstRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(dst.As<Napi::Object>()));
  const image::ResampleSpec spec = job.spec;
  uint8_t* out = dst.Data();
  auto* worker = new PromiseWorker(
      env,
      [=](PromiseWorker& w) {
        try {
          image::resampleToU8(spec, isa, out);
        } catch (const std::bad_alloc&) {
          w.failWith("OUT_OF_MEMORY", "resample: out of memory for its scratch rows");
        }
      },
      [srcRef, dstRef](Napi::Env) { return dstRef->Value(); });
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

// resampleNormalizeSync(job, tables, out, channelStride, offset): planes written into out.
Napi::Value resampleNormalizeSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ParsedJob job = parseJob(info);
  NormalizeArgs a = parseNormalize(info, job.spec);
  const image::Isa isa = isaFromEnv(env);
  runOrThrow(env, [&] { image::resampleToPlanes(job.spec, isa, a.tables->data(), a.out.Data(), a.channelStride, a.offset); });
  return env.Undefined();
}

// resampleNormalize(job, tables, out, channelStride, offset) -> Promise<void>, on the libuv pool.
Napi::Value resampleNormalize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ParsedJob job = parseJob(info);
  NormalizeArgs a = parseNormalize(info, job.spec);
  const image::Isa isa = isaFromEnv(env);
  auto srcRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(job.src));
  auto outRef = std::make_shared<Napi::ObjectReference>(Napi::Persistent(a.out.As<Napi::Object>()));
  const image::ResampleSpec spec = job.spec;
  float* out = a.out.Data();
  auto tables = a.tables;
  const size_t stride = a.channelStride, offset = a.offset;
  auto* worker = new PromiseWorker(
      env,
      [=](PromiseWorker& w) {
        try {
          image::resampleToPlanes(spec, isa, tables->data(), out, stride, offset);
        } catch (const std::bad_alloc&) {
          w.failWith("OUT_OF_MEMORY", "resample: out of memory for its scratch rows");
        }
      },
      [srcRef, outRef](Napi::Env env) { return env.Undefined(); });
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

// resampleKernels() -> the kernels this CPU runs, fastest first (values of JEPA_RESAMPLE_ISA).
Napi::Value resampleKernels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<image::Isa> isas = image::supportedIsas();
  Napi::Array out = Napi::Array::New(env, isas.size());
  for (size_t i = 0; i < isas.size(); ++i) out.Set(static_cast<uint32_t>(i), image::isaName(isas[i]));
  return out;
}

}  // namespace jepa
