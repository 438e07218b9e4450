// The JavaScript classes of the binding. Each wraps one owned resource (see common.h).
#pragma once

#include "common.h"

namespace jepa {

class Backend : public Napi::ObjectWrap<Backend> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit Backend(const Napi::CallbackInfo& info);
  std::shared_ptr<BackendRes> res(Napi::Env env) const;

 private:
  Napi::Value name(const Napi::CallbackInfo& info);
  Napi::Value deviceName(const Napi::CallbackInfo& info);
  Napi::Value isCpu(const Napi::CallbackInfo& info);
  Napi::Value getThreads(const Napi::CallbackInfo& info);
  Napi::Value sharedComputeBytes(const Napi::CallbackInfo& info);
  void setThreads(const Napi::CallbackInfo& info, const Napi::Value& value);
  Napi::Value supportsOp(const Napi::CallbackInfo& info);
  Napi::Value bufferTypes(const Napi::CallbackInfo& info);
  Napi::Value allocBuffer(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<BackendRes> res_;
};

// Finds a buffer type of the backend's device by name ("" = the default one).
ggml_backend_buffer_type_t findBufferType(Napi::Env env, const BackendRes& backend, const std::string& name);

class Buffer : public Napi::ObjectWrap<Buffer> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object wrap(Napi::Env env, std::shared_ptr<BufferRes> res);
  explicit Buffer(const Napi::CallbackInfo& info);
  std::shared_ptr<BufferRes> res(Napi::Env env) const;

 private:
  Napi::Value size(const Napi::CallbackInfo& info);
  Napi::Value name(const Napi::CallbackInfo& info);
  Napi::Value isHost(const Napi::CallbackInfo& info);
  void clear(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<BufferRes> res_;
};

class Mapping : public Napi::ObjectWrap<Mapping> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit Mapping(const Napi::CallbackInfo& info);
  std::shared_ptr<MappingRes> res(Napi::Env env) const;

 private:
  Napi::Value length(const Napi::CallbackInfo& info);
  Napi::Value path(const Napi::CallbackInfo& info);
  Napi::Value toBuffer(const Napi::CallbackInfo& info);
  Napi::Value read(const Napi::CallbackInfo& info);
  void release(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<MappingRes> res_;
};

class Tensor : public Napi::ObjectWrap<Tensor> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object wrap(Napi::Env env, const std::shared_ptr<ContextRes>& owner, ggml_tensor* t);
  explicit Tensor(const Napi::CallbackInfo& info);
  ggml_tensor* tensor(Napi::Env env) const;
  const std::shared_ptr<ContextRes>& owner() const { return owner_; }

 private:
  Napi::Value type(const Napi::CallbackInfo& info);
  Napi::Value ne(const Napi::CallbackInfo& info);
  Napi::Value nb(const Napi::CallbackInfo& info);
  Napi::Value nbytes(const Napi::CallbackInfo& info);
  Napi::Value getName(const Napi::CallbackInfo& info);
  void setName(const Napi::CallbackInfo& info, const Napi::Value& value);
  Napi::Value op(const Napi::CallbackInfo& info);
  Napi::Value isContiguous(const Napi::CallbackInfo& info);
  Napi::Value hasData(const Napi::CallbackInfo& info);
  Napi::Value repacked(const Napi::CallbackInfo& info);
  Napi::Value bufferType(const Napi::CallbackInfo& info);
  void setInput(const Napi::CallbackInfo& info);
  void setOutput(const Napi::CallbackInfo& info);
  void setPrecF32(const Napi::CallbackInfo& info);
  void set(const Napi::CallbackInfo& info);
  Napi::Value get(const Napi::CallbackInfo& info);
  void bind(const Napi::CallbackInfo& info);
  void loadFrom(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<ContextRes> owner_;
  ggml_tensor* t_ = nullptr;
};

// Unwraps argument i as a live Tensor, or throws a NativeError naming `what`.
Tensor* argTensor(const Napi::CallbackInfo& info, size_t i, const char* what);
// As argTensor, but null/undefined gives nullptr.
Tensor* argOptionalTensor(const Napi::CallbackInfo& info, size_t i, const char* what);
Tensor* valueTensor(Napi::Env env, Napi::Value v, const char* what);

class Context : public Napi::ObjectWrap<Context> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit Context(const Napi::CallbackInfo& info);
  std::shared_ptr<ContextRes> res(Napi::Env env) const;
  // Tensors left before the context is full (ggml aborts on overflow, so we check first).
  void reserve(Napi::Env env, size_t tensors) const;

 private:
  Napi::Value tensorCapacity(const Napi::CallbackInfo& info);
  Napi::Value tensorCount(const Napi::CallbackInfo& info);
  Napi::Value allocate(const Napi::CallbackInfo& info);
  Napi::Value buildGraph(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<ContextRes> res_;
  size_t capacity_ = 0;
};

// Adds the op methods (mulMat, add, flashAttnExt, ...) to the Context prototype.
void defineOps(Napi::Env env, Napi::Object prototype);

class Graph : public Napi::ObjectWrap<Graph> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object wrap(Napi::Env env, std::shared_ptr<GraphRes> res);
  explicit Graph(const Napi::CallbackInfo& info);

 private:
  std::shared_ptr<GraphRes> res(Napi::Env env) const;
  Napi::Value nodeCount(const Napi::CallbackInfo& info);
  Napi::Value nodes(const Napi::CallbackInfo& info);
  Napi::Value unsupported(const Napi::CallbackInfo& info);
  void validate(const Napi::CallbackInfo& info);
  Napi::Value allocate(const Napi::CallbackInfo& info);
  Napi::Value compute(const Napi::CallbackInfo& info);
  Napi::Value profile(const Napi::CallbackInfo& info);
  Napi::Value ops(const Napi::CallbackInfo& info);
  Napi::Value isBusy(const Napi::CallbackInfo& info);
  Napi::Value isPlaced(const Napi::CallbackInfo& info);
  void dispose(const Napi::CallbackInfo& info);
  std::shared_ptr<GraphRes> res_;
};

}  // namespace jepa
