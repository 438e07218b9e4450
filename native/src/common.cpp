#include "common.h"

#include <sys/mman.h>

#include <cmath>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define JEPA_HAVE_MXCSR 1
#endif

namespace jepa {

MappingRes::~MappingRes() {
  if (addr && length) munmap(addr, length);
}

void ContextRes::addInput(const std::shared_ptr<ContextRes>& other) {
  if (!other || other.get() == this) return;
  std::lock_guard<std::mutex> lock(mu);
  for (auto& c : inputs)
    if (c == other) return;
  inputs.push_back(other);
}

void ContextRes::addBuffer(const std::shared_ptr<BufferRes>& buffer) {
  std::lock_guard<std::mutex> lock(mu);
  for (auto& b : buffers)
    if (b == buffer) return;
  buffers.push_back(buffer);
}

ComputeThread::ComputeThread() : thread_([this] { loop(); }) {}

std::shared_ptr<ComputeThread> cpuComputeThread() {
  static const std::shared_ptr<ComputeThread> thread(new ComputeThread(), [](ComputeThread*) {});
  return thread;
}

ComputeThread::~ComputeThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ComputeThread::run(const std::function<void()>& job) {
  std::mutex doneMu;
  std::condition_variable doneCv;
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([&] {
      job();
      std::lock_guard<std::mutex> l(doneMu);
      done = true;
      doneCv.notify_all();
    });
  }
  cv_.notify_all();
  std::unique_lock<std::mutex> wait(doneMu);
  doneCv.wait(wait, [&] { return done; });
}

void ComputeThread::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

AddonData& addonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

Napi::Error makeError(Napi::Env env, const std::string& code, const std::string& message) {
  AddonData& data = addonData(env);
  if (!data.errorClass.IsEmpty()) {
    Napi::Value err = data.errorClass.New({Napi::String::New(env, message), Napi::String::New(env, code)});
    return Napi::Error(env, err);
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err;
}

void fail(Napi::Env env, const std::string& code, const std::string& message) {
  throw makeError(env, code, message);
}

int64_t argInt(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsNumber()) fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be a number");
  double v = info[i].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9007199254740991.0)
    fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be an integer");
  return static_cast<int64_t>(v);
}

double argNumber(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsNumber()) fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be a number");
  return info[i].As<Napi::Number>().DoubleValue();
}

std::string argString(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsString()) fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be a string");
  return info[i].As<Napi::String>().Utf8Value();
}

ggml_type argType(const Napi::CallbackInfo& info, size_t i) {
  int64_t t = argInt(info, i, "type");
  if (t < 0 || t >= GGML_TYPE_COUNT || ggml_type_size(static_cast<ggml_type>(t)) == 0 ||
      ggml_blck_size(static_cast<ggml_type>(t)) == 0)
    fail(info.Env(), "BAD_TYPE", "unknown or removed ggml type " + std::to_string(t));
  return static_cast<ggml_type>(t);
}

std::vector<int64_t> argDims(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsArray()) fail(info.Env(), "BAD_ARGUMENT", std::string(what) + " must be an array");
  Napi::Array arr = info[i].As<Napi::Array>();
  if (arr.Length() < 1 || arr.Length() > GGML_MAX_DIMS)
    fail(info.Env(), "BAD_SHAPE", std::string(what) + " must have 1 to 4 dimensions");
  std::vector<int64_t> dims(GGML_MAX_DIMS, 1);
  for (uint32_t k = 0; k < arr.Length(); ++k) {
    Napi::Value v = arr.Get(k);
    double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 1 && d <= 4611686018427387904.0) || d != std::floor(d))
      fail(info.Env(), "BAD_SHAPE", std::string(what) + "[" + std::to_string(k) + "] must be a positive integer");
    dims[k] = static_cast<int64_t>(d);
  }
  return dims;
}

std::string shapeString(const ggml_tensor* t) {
  std::ostringstream s;
  s << "[" << t->ne[0] << ", " << t->ne[1] << ", " << t->ne[2] << ", " << t->ne[3] << "]";
  return s.str();
}

std::string describe(const ggml_tensor* t) {
  std::string name = t->name[0] ? std::string("'") + t->name + "'" : std::string("(unnamed)");
  return name + " " + ggml_op_desc(t) + " " + ggml_type_name(t->type) + " " + shapeString(t);
}

void enableFlushToZero(int threads) {
#ifdef JEPA_HAVE_MXCSR
  _mm_setcsr(_mm_getcsr() | 0x8040);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  { _mm_setcsr(_mm_getcsr() | 0x8040); }
#else
  (void)threads;
#endif
#else
  (void)threads;
#endif
}

PromiseWorker::PromiseWorker(Napi::Env env, Work work, Result result)
    : Napi::AsyncWorker(env, "jepa-native"), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)),
      result_(std::move(result)) {}

void PromiseWorker::failWith(const std::string& code, const std::string& message) {
  code_ = code;
  SetError(message);
}

void PromiseWorker::failWith(const std::string& code, const std::string& message,
                             std::vector<std::pair<std::string, double>> details) {
  details_ = std::move(details);
  failWith(code, message);
}

void PromiseWorker::Execute() {
  try {
    work_(*this);
  } catch (const std::exception& e) {
    failWith("NATIVE", e.what());
  }
}

void PromiseWorker::OnOK() {
  Napi::HandleScope scope(Env());
  try {
    deferred_.Resolve(result_ ? result_(Env()) : Env().Undefined());
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
  work_ = nullptr;
  result_ = nullptr;
}

void PromiseWorker::OnError(const Napi::Error& e) {
  Napi::HandleScope scope(Env());
  Napi::Error err = makeError(Env(), code_, e.Message());
  for (const auto& [key, value] : details_) err.Set(key, Napi::Number::New(Env(), value));
  deferred_.Reject(err.Value());
  work_ = nullptr;
  result_ = nullptr;
}

}  // namespace jepa
