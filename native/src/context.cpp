#include <unordered_set>

#include "wrappers.h"

namespace jepa {

Napi::Function Context::define(Napi::Env env) {
  Napi::Function cls = DefineClass(env, "Context",
                                   {
                                       InstanceAccessor<&Context::tensorCapacity>("tensorCapacity"),
                                       InstanceAccessor<&Context::tensorCount>("tensorCount"),
                                       InstanceMethod<&Context::allocate>("allocate"),
                                       InstanceMethod<&Context::buildGraph>("buildGraph"),
                                       InstanceMethod<&Context::dispose>("dispose"),
                                   });
  defineOps(env, cls.Get("prototype").As<Napi::Object>());
  return cls;
}

// new Context(maxTensors): metadata only (no_alloc); memory comes from allocate() or a graph.
Context::Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info) {
  Napi::Env env = info.Env();
  int64_t maxTensors = argInt(info, 0, "maxTensors");
  if (maxTensors < 1 || maxTensors > (1 << 24)) fail(env, "BAD_ARGUMENT", "maxTensors must be 1..16777216");
  ggml_init_params params{static_cast<size_t>(maxTensors) * ggml_tensor_overhead(), nullptr, true};
  auto res = std::make_shared<ContextRes>();
  res->ctx = ggml_init(params);
  if (!res->ctx) fail(env, "OUT_OF_MEMORY", "ggml_init failed");
  capacity_ = static_cast<size_t>(maxTensors);
  res_ = std::move(res);
}

std::shared_ptr<ContextRes> Context::res(Napi::Env env) const {
  if (!res_) fail(env, "DISPOSED", "the context was disposed");
  return res_;
}

void Context::reserve(Napi::Env env, size_t tensors) const {
  ggml_context* ctx = res(env)->ctx;
  size_t left = ggml_get_mem_size(ctx) - ggml_used_mem(ctx);
  if (left < tensors * ggml_tensor_overhead())
    fail(env, "CONTEXT_FULL", "the context holds at most " + std::to_string(capacity_) + " tensors");
}

Napi::Value Context::tensorCapacity(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(capacity_));
}

Napi::Value Context::tensorCount(const Napi::CallbackInfo& info) {
  size_t n = 0;
  for (ggml_tensor* t = ggml_get_first_tensor(res(info.Env())->ctx); t; t = ggml_get_next_tensor(res_->ctx, t)) ++n;
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// allocate(backend, bufferTypeName?): one buffer for every tensor of the context that has none.
Napi::Value Context::allocate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto r = res(env);
  if (info.Length() < 1 || !info[0].IsObject()) fail(env, "BAD_ARGUMENT", "allocate needs a Backend");
  auto backend = Backend::Unwrap(info[0].As<Napi::Object>())->res(env);
  std::string typeName = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
  ggml_backend_buffer_type_t buft = findBufferType(env, *backend, typeName);
  bool pending = false;
  for (ggml_tensor* t = ggml_get_first_tensor(r->ctx); t; t = ggml_get_next_tensor(r->ctx, t))
    if (!t->data && !t->view_src) pending = true;
  if (!pending) fail(env, "NOTHING_TO_ALLOCATE", "every tensor of the context already has memory");
  auto buf = std::make_shared<BufferRes>();
  buf->buffer = ggml_backend_alloc_ctx_tensors_from_buft(r->ctx, buft);
  if (!buf->buffer) fail(env, "OUT_OF_MEMORY", std::string("could not allocate the context's tensors in ") + ggml_backend_buft_name(buft));
  r->addBuffer(buf);
  return Buffer::wrap(env, std::move(buf));
}

// buildGraph([outputs]) -> Graph over everything the outputs depend on.
Napi::Value Context::buildGraph(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto r = res(env);
  if (info.Length() < 1 || !info[0].IsArray()) fail(env, "BAD_ARGUMENT", "buildGraph needs an array of output tensors");
  Napi::Array outs = info[0].As<Napi::Array>();
  if (outs.Length() == 0) fail(env, "BAD_ARGUMENT", "buildGraph needs at least one output tensor");
  std::vector<ggml_tensor*> outputs;
  for (uint32_t i = 0; i < outs.Length(); ++i) {
    Napi::Value v = outs.Get(i);
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(addonData(env).tensorCtor.Value()))
      fail(env, "BAD_ARGUMENT", "buildGraph outputs must be Tensors");
    Tensor* t = Tensor::Unwrap(v.As<Napi::Object>());
    ggml_tensor* gt = t->tensor(env);
    if (t->owner() != r) fail(env, "BAD_ARGUMENT", "output " + describe(gt) + " belongs to another context");
    outputs.push_back(gt);
  }
  // Size the graph from the actual reachable set: ggml aborts when a graph overflows.
  std::unordered_set<ggml_tensor*> seen;
  std::vector<ggml_tensor*> stack(outputs.begin(), outputs.end());
  while (!stack.empty()) {
    ggml_tensor* t = stack.back();
    stack.pop_back();
    if (!t || !seen.insert(t).second) continue;
    for (int s = 0; s < GGML_MAX_SRC; ++s) stack.push_back(t->src[s]);
    if (t->view_src) stack.push_back(t->view_src);
  }
  size_t size = seen.size() + 16;
  auto g = std::make_shared<GraphRes>();
  g->ctx = r;
  ggml_init_params params{ggml_graph_overhead_custom(size, false), nullptr, true};
  g->graphCtx = ggml_init(params);
  if (!g->graphCtx) fail(env, "OUT_OF_MEMORY", "could not allocate a graph of " + std::to_string(size) + " nodes");
  g->graph = ggml_new_graph_custom(g->graphCtx, size, false);
  g->tensors.assign(seen.begin(), seen.end());
  for (ggml_tensor* t : g->tensors)
    if (!t->data && !t->buffer) g->owned.push_back(t);
  for (ggml_tensor* t : outputs) ggml_build_forward_expand(g->graph, t);
  return Graph::wrap(env, std::move(g));
}

void Context::dispose(const Napi::CallbackInfo&) { res_.reset(); }

}  // namespace jepa
