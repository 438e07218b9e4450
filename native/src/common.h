// Shared pieces of the binding: owned ggml resources, the error type, argument helpers.
//
// Every ggml object the binding hands to JavaScript lives in a shared_ptr "resource". A JS
// wrapper holds one reference; an in-flight compute holds its own, so disposing a wrapper while
// a graph runs only drops a reference and the memory is freed when the compute lets go.
#pragma once

#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <thread>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace jepa {

struct MappingRes {
  void* addr = nullptr;
  size_t length = 0;
  std::string path;
  ~MappingRes();
};

struct BufferRes {
  ggml_backend_buffer_t buffer = nullptr;
  std::shared_ptr<MappingRes> mapping;  // host memory the buffer wraps, when it wraps a file
  ~BufferRes() {
    if (buffer) ggml_backend_buffer_free(buffer);
  }
};

struct ContextRes {
  ggml_context* ctx = nullptr;
  std::mutex mu;
  std::vector<std::shared_ptr<BufferRes>> buffers;   // memory its tensors live in
  std::vector<std::shared_ptr<ContextRes>> inputs;   // other contexts whose tensors feed its ops
  // This engine's custom CPU nodes by the name they were made with ("PANEL_MUL_MAT f32"), which a
  // caller may rename: what Graph.ops() reports for them.
  std::unordered_map<const ggml_tensor*, std::string> opLabels;
  void addInput(const std::shared_ptr<ContextRes>& other);
  void addBuffer(const std::shared_ptr<BufferRes>& buffer);
  ~ContextRes() {
    if (ctx) ggml_free(ctx);
  }
};

// A long-lived thread runs a backend's graphs. Computing from whichever libuv pool thread picked up
// the job would give each pool thread its own OpenMP team, and idle teams spinning on two cores
// measurably slow the one that works. Every CPU backend shares one (cpuComputeThread): ggml_barrier
// is an OpenMP barrier, and libgomp stops spinning at barriers once it manages more threads than
// there are CPUs, which cost ViT-B 18 % with five models loaded in one process.
class ComputeThread {
 public:
  ComputeThread();
  ~ComputeThread();
  // Runs `job` on the thread and returns when it has finished.
  void run(const std::function<void()>& job);

 private:
  void loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::thread thread_;
};

// The process's one thread for CPU graphs (never destroyed: it outlives every backend).
std::shared_ptr<ComputeThread> cpuComputeThread();

struct GraphRes;

struct BackendRes {
  ggml_backend_t backend = nullptr;
  ggml_backend_dev_t device = nullptr;
  bool isCpu = false;
  int threads = 1;
  std::mutex computeMu;  // one graph at a time per backend
  std::shared_ptr<ComputeThread> computeThread;
  // The one compute buffer that graphs allocated with {shared: true} take turns in: it grows to the
  // largest of them, where a buffer per graph would hold their sum (a graph per batch size adds up).
  std::mutex sharedMu;
  ggml_gallocr_t shared = nullptr;
  GraphRes* sharedBy = nullptr;  // the graph whose tensors are in it now
  ~BackendRes() {
    if (shared) ggml_gallocr_free(shared);
    if (backend) ggml_backend_free(backend);
  }
};

struct GraphRes {
  std::shared_ptr<ContextRes> ctx;  // the tensors of the graph
  ggml_context* graphCtx = nullptr; // memory of the ggml_cgraph itself
  ggml_cgraph* graph = nullptr;
  ggml_gallocr_t allocr = nullptr;  // its own allocator, when not placed in the backend's shared buffer
  std::shared_ptr<BackendRes> allocatedFor;
  bool shared = false;  // placed in allocatedFor's shared compute buffer (while it is sharedBy there)
  std::vector<ggml_tensor*> tensors;  // everything the outputs depend on
  std::vector<ggml_tensor*> owned;    // the subset whose memory the graph allocator places
  std::vector<ggml_backend_buffer_t> placedIn;  // the allocator's buffers, as the owned tensors point into them
  std::atomic<bool> busy{false};
  // Points the owned tensors back at no memory: a later read then fails instead of touching memory
  // freed or given to another graph.
  void unplace() {
    for (ggml_tensor* t : owned)
      for (ggml_backend_buffer_t b : placedIn)
        if (t->buffer == b) {
          t->data = nullptr;
          t->buffer = nullptr;
        }
    placedIn.clear();
  }
  // Whether the owned tensors have their memory now (a shared graph loses it to the next one placed).
  bool placed() const {
    if (!allocatedFor) return false;
    if (!shared) return true;
    std::lock_guard<std::mutex> lock(allocatedFor->sharedMu);
    return allocatedFor->sharedBy == this;
  }
  ~GraphRes() {
    if (shared && allocatedFor) {
      std::lock_guard<std::mutex> lock(allocatedFor->sharedMu);
      if (allocatedFor->sharedBy == this) allocatedFor->sharedBy = nullptr;
      unplace();
    } else {
      // The context (kept alive by `ctx`) outlives this graph: its tensors must not keep pointing
      // into memory freed here, or a later read would touch freed memory instead of failing.
      unplace();
    }
    if (allocr) ggml_gallocr_free(allocr);
    if (graphCtx) ggml_free(graphCtx);
  }
};

// Per-env data: constructors of the wrapped classes and the JS error class.
struct AddonData {
  Napi::FunctionReference tensorCtor;
  Napi::FunctionReference bufferCtor;
  Napi::FunctionReference graphCtor;
  Napi::FunctionReference mappingCtor;
  Napi::FunctionReference errorClass;
};

AddonData& addonData(Napi::Env env);

// A NativeError (the class registered from TypeScript) carrying `code`.
Napi::Error makeError(Napi::Env env, const std::string& code, const std::string& message);
[[noreturn]] void fail(Napi::Env env, const std::string& code, const std::string& message);

int64_t argInt(const Napi::CallbackInfo& info, size_t i, const char* what);
double argNumber(const Napi::CallbackInfo& info, size_t i, const char* what);
std::string argString(const Napi::CallbackInfo& info, size_t i, const char* what);
ggml_type argType(const Napi::CallbackInfo& info, size_t i);
// Up to 4 dimensions, ggml order (ne[0] fastest); missing trailing dims are 1.
std::vector<int64_t> argDims(const Napi::CallbackInfo& info, size_t i, const char* what);

std::string shapeString(const ggml_tensor* t);
std::string describe(const ggml_tensor* t);

// Sets flush-to-zero and denormals-are-zero on the calling thread and the OpenMP pool it uses:
// sharp attention otherwise drives the CPU into denormal arithmetic (4-10x slower).
void enableFlushToZero(int threads);

// Runs `work` on the libuv pool and settles a Promise with `result` (or a NativeError).
class PromiseWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<void(PromiseWorker&)>;
  using Result = std::function<Napi::Value(Napi::Env)>;
  PromiseWorker(Napi::Env env, Work work, Result result);
  Napi::Promise promise() { return deferred_.Promise(); }
  void failWith(const std::string& code, const std::string& message);
  // As failWith, with numeric properties set on the error (e.g. a deadline's nodesDone).
  void failWith(const std::string& code, const std::string& message, std::vector<std::pair<std::string, double>> details);
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& e) override;

 private:
  Napi::Promise::Deferred deferred_;
  Work work_;
  Result result_;
  std::string code_ = "NATIVE";
  std::vector<std::pair<std::string, double>> details_;
};

}  // namespace jepa
