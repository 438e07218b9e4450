// Module entry: the classes, device listing, type traits, quantizers, the image resampler and build facts.
#include <cctype>

#include "cpu/gelu_erf.h"
#include "cpu_backend.h"
#include "cpu/cpu_level.h"
#include "cpu/flash_attn.h"
#include "cpu/panel.h"
#include "malloc_policy.h"
#include "wrappers.h"

namespace jepa {

Napi::Value typeTraits(const Napi::CallbackInfo& info);
Napi::Value quantize(const Napi::CallbackInfo& info);
Napi::Value dequantize(const Napi::CallbackInfo& info);
Napi::Value packPanel(const Napi::CallbackInfo& info);
Napi::Value packPanelAsync(const Napi::CallbackInfo& info);
Napi::Value panelBytesFor(const Napi::CallbackInfo& info);
Napi::Value ggufInfo(const Napi::CallbackInfo& info);
Napi::Value resampleU8(const Napi::CallbackInfo& info);
Napi::Value resampleU8Sync(const Napi::CallbackInfo& info);
Napi::Value resampleNormalize(const Napi::CallbackInfo& info);
Napi::Value resampleNormalizeSync(const Napi::CallbackInfo& info);
Napi::Value resampleKernels(const Napi::CallbackInfo& info);
Napi::Value findNonFinite(const Napi::CallbackInfo& info);

static const char* deviceType(ggml_backend_dev_t dev) {
  switch (ggml_backend_dev_type(dev)) {
    case GGML_BACKEND_DEVICE_TYPE_CPU: return "cpu";
    case GGML_BACKEND_DEVICE_TYPE_GPU: return "gpu";
    case GGML_BACKEND_DEVICE_TYPE_IGPU: return "igpu";
    default: return "accel";
  }
}

static Napi::Value devices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t n = ggml_backend_dev_count();
  Napi::Array out = Napi::Array::New(env, n);
  for (size_t i = 0; i < n; ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    size_t freeMem = 0, totalMem = 0;
    ggml_backend_dev_memory(dev, &freeMem, &totalMem);
    Napi::Object d = Napi::Object::New(env);
    d.Set("name", ggml_backend_dev_name(dev));
    d.Set("description", ggml_backend_dev_description(dev));
    d.Set("type", deviceType(dev));
    d.Set("memoryFree", static_cast<double>(freeMem));
    d.Set("memoryTotal", static_cast<double>(totalMem));
    out.Set(static_cast<uint32_t>(i), d);
  }
  return out;
}

static Napi::Value buildInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("ggmlVersion", ggml_version());
  out.Set("ggmlCommit", JEPA_GGML_COMMIT);
  out.Set("nativeCpu", JEPA_BUILD_NATIVE != 0);
#ifdef JEPA_CUDA
  out.Set("cuda", true);
#else
  out.Set("cuda", false);
#endif
  Napi::Object cpu = Napi::Object::New(env);
  for (const auto& [name, value] : cpuFeatures()) {
    std::string key = name;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (value == "1") cpu.Set(key, true);
  }
  out.Set("cpu", cpu);
  out.Set("cpuVariant", cpuVariant());
#ifdef GGML_BACKEND_DL
  out.Set("portable", true);
#else
  out.Set("portable", false);
#endif
  out.Set("cpuLevel", cpuLevelName(cpuLevel()));
  out.Set("cpuVnni", cpuVnniAllowed());
  out.Set("geluErfCpu", jepa::geluErfCpuKernel(jepa::GeluErf::Libm));
  out.Set("geluErfCpuRational", jepa::geluErfCpuKernel(jepa::GeluErf::Rational));
  const char* panel = jepa::panelBestKernel(GGML_TYPE_Q8_0);
  out.Set("panelKernel", panel ? Napi::Value(Napi::String::New(env, panel)) : env.Null());
  const char* flash = jepa::flashAttnCpuKernel();
  out.Set("flashAttnCpu", flash ? Napi::Value(Napi::String::New(env, flash)) : env.Null());
  const char* panelF32 = jepa::panelBestKernel(GGML_TYPE_F32);
  out.Set("panelKernelF32", panelF32 ? Napi::Value(Napi::String::New(env, panelF32)) : env.Null());
  const char* panelRows = jepa::panelBestKernel(GGML_TYPE_I8);
  out.Set("panelKernelRows", panelRows ? Napi::Value(Napi::String::New(env, panelRows)) : env.Null());
  Napi::Array rowsKernels = Napi::Array::New(env);
  for (const char* name : {"amx", "avx512-vnni", "avx-vnni", "avx512", "avx2"})
    if (jepa::panelKernelAvailable(GGML_TYPE_I8, name)) rowsKernels.Set(rowsKernels.Length(), Napi::String::New(env, name));
  out.Set("panelKernelsRows", rowsKernels);
  out.Set("typeCount", static_cast<double>(GGML_TYPE_COUNT));
  return out;
}

// trimHeap(): returns the heap's free pages to the OS (glibc malloc_trim); true when some were released.
static Napi::Value trimHeap(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), trimHeapPages()); }

// setErrorClass(NativeError): native failures are thrown as `new NativeError(message, code)`.
static void setErrorClass(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "setErrorClass needs a constructor");
  addonData(info.Env()).errorClass = Napi::Persistent(info[0].As<Napi::Function>());
}

static void silenceLog(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static Napi::Object init(Napi::Env env, Napi::Object exports) {
  applyMallocPolicy();
  auto* data = new AddonData();
  env.SetInstanceData(data);
  ggml_log_set(silenceLog, nullptr);
  const std::string badLevel = initCpuLevel();
  if (!badLevel.empty()) throw Napi::Error::New(env, "jepa native addon: " + badLevel);
  const std::string noCpu = loadCpuBackends();
  if (!noCpu.empty()) throw Napi::Error::New(env, "jepa native addon: " + noCpu);
  Napi::Function tensor = Tensor::define(env);
  Napi::Function buffer = Buffer::define(env);
  Napi::Function graph = Graph::define(env);
  Napi::Function mapping = Mapping::define(env);
  data->tensorCtor = Napi::Persistent(tensor);
  data->bufferCtor = Napi::Persistent(buffer);
  data->graphCtor = Napi::Persistent(graph);
  data->mappingCtor = Napi::Persistent(mapping);
  exports.Set("Tensor", tensor);
  exports.Set("Buffer", buffer);
  exports.Set("Graph", graph);
  exports.Set("Mapping", mapping);
  exports.Set("Backend", Backend::define(env));
  exports.Set("Context", Context::define(env));
  exports.Set("devices", Napi::Function::New(env, devices, "devices"));
  exports.Set("buildInfo", Napi::Function::New(env, buildInfo, "buildInfo"));
  exports.Set("typeTraits", Napi::Function::New(env, typeTraits, "typeTraits"));
  exports.Set("quantize", Napi::Function::New(env, quantize, "quantize"));
  exports.Set("dequantize", Napi::Function::New(env, dequantize, "dequantize"));
  exports.Set("panelPack", Napi::Function::New(env, packPanel, "panelPack"));
  exports.Set("panelPackAsync", Napi::Function::New(env, packPanelAsync, "panelPackAsync"));
  exports.Set("trimHeap", Napi::Function::New(env, trimHeap, "trimHeap"));
  exports.Set("panelBytes", Napi::Function::New(env, panelBytesFor, "panelBytes"));
  exports.Set("ggufInfo", Napi::Function::New(env, ggufInfo, "ggufInfo"));
  exports.Set("resampleU8", Napi::Function::New(env, resampleU8, "resampleU8"));
  exports.Set("resampleU8Sync", Napi::Function::New(env, resampleU8Sync, "resampleU8Sync"));
  exports.Set("resampleNormalize", Napi::Function::New(env, resampleNormalize, "resampleNormalize"));
  exports.Set("resampleNormalizeSync", Napi::Function::New(env, resampleNormalizeSync, "resampleNormalizeSync"));
  exports.Set("resampleKernels", Napi::Function::New(env, resampleKernels, "resampleKernels"));
  exports.Set("findNonFinite", Napi::Function::New(env, findNonFinite, "findNonFinite"));
  exports.Set("setErrorClass", Napi::Function::New(env, setErrorClass, "setErrorClass"));
  return exports;
}

}  // namespace jepa

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return jepa::init(env, exports); }

NODE_API_MODULE(jepa_native, InitModule)
