#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "wrappers.h"

namespace jepa {

Napi::Function Graph::define(Napi::Env env) {
  return DefineClass(env, "Graph",
                     {
                         InstanceAccessor<&Graph::nodeCount>("nodeCount"),
                         InstanceAccessor<&Graph::isBusy>("busy"),
                         InstanceAccessor<&Graph::isPlaced>("placed"),
                         InstanceMethod<&Graph::nodes>("nodes"),
                         InstanceMethod<&Graph::ops>("ops"),
                         InstanceMethod<&Graph::unsupported>("unsupported"),
                         InstanceMethod<&Graph::validate>("validate"),
                         InstanceMethod<&Graph::allocate>("allocate"),
                         InstanceMethod<&Graph::compute>("compute"),
                         InstanceMethod<&Graph::profile>("profile"),
                         InstanceMethod<&Graph::dispose>("dispose"),
                     });
}

Napi::Object Graph::wrap(Napi::Env env, std::shared_ptr<GraphRes> res) {
  auto* holder = new std::shared_ptr<GraphRes>(std::move(res));
  return addonData(env).graphCtor.New({Napi::External<std::shared_ptr<GraphRes>>::New(
      env, holder, [](Napi::Env, std::shared_ptr<GraphRes>* p) { delete p; })});
}

Graph::Graph(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Graph>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) fail(info.Env(), "BAD_ARGUMENT", "graphs are made by Context.buildGraph");
  // taken, not copied: the External would otherwise keep the graph alive until a GC collects it
  res_ = std::move(*info[0].As<Napi::External<std::shared_ptr<GraphRes>>>().Data());
}

std::shared_ptr<GraphRes> Graph::res(Napi::Env env) const {
  if (!res_) fail(env, "DISPOSED", "the graph was disposed");
  return res_;
}

static std::shared_ptr<BackendRes> argBackend(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsObject()) fail(info.Env(), "BAD_ARGUMENT", "a Backend is required");
  return Backend::Unwrap(info[i].As<Napi::Object>())->res(info.Env());
}

Napi::Value Graph::nodeCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), ggml_graph_n_nodes(res(info.Env())->graph));
}

Napi::Value Graph::isBusy(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), res_ && res_->busy.load());
}

template <typename F>
static Napi::Array perNode(Napi::Env env, ggml_cgraph* g, F text) {
  int n = ggml_graph_n_nodes(g);
  Napi::Array out = Napi::Array::New(env, n);
  for (int i = 0; i < n; ++i) out.Set(static_cast<uint32_t>(i), text(ggml_graph_node(g, i)));
  return out;
}

// nodes() -> one description per node: "'name' OP type [ne...]"
Napi::Value Graph::nodes(const Napi::CallbackInfo& info) {
  return perNode(info.Env(), res(info.Env())->graph, [](const ggml_tensor* t) { return describe(t); });
}

// ops() -> each node's op, as ggml names it ("MUL_MAT", "FLASH_ATTN_EXT", unary ops by their own name);
// this engine's custom CPU ops by the name they were made with ("PANEL_MUL_MAT f32", "GELU_ERF_CPU").
Napi::Value Graph::ops(const Napi::CallbackInfo& info) {
  const auto& labels = res(info.Env())->ctx->opLabels;
  return perNode(info.Env(), res(info.Env())->graph, [&labels](const ggml_tensor* t) {
    const auto label = labels.find(t);
    return label != labels.end() ? label->second : std::string(ggml_op_desc(t));
  });
}

// Nodes the backend cannot run, and leaf tensors whose memory it cannot read.
static std::vector<std::string> findUnsupported(const GraphRes& g, const BackendRes& b) {
  std::vector<std::string> bad;
  int n = ggml_graph_n_nodes(g.graph);
  const std::string dev = ggml_backend_dev_name(b.device);
  for (int i = 0; i < n; ++i) {
    ggml_tensor* t = ggml_graph_node(g.graph, i);
    if (!ggml_backend_supports_op(b.backend, t))
      bad.push_back("node " + std::to_string(i) + " " + describe(t) + " is not supported by " + dev);
    for (int s = 0; s < GGML_MAX_SRC; ++s) {
      ggml_tensor* src = t->src[s];
      if (src && src->buffer && !ggml_backend_supports_buft(b.backend, ggml_backend_buffer_get_type(src->buffer)))
        bad.push_back("node " + std::to_string(i) + " " + describe(t) + " reads " + describe(src) + " from " +
                      ggml_backend_buffer_name(src->buffer) + " memory, which " + dev + " cannot use");
    }
  }
  return bad;
}

Napi::Value Graph::unsupported(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto bad = findUnsupported(*res(env), *argBackend(info, 0));
  Napi::Array out = Napi::Array::New(env, bad.size());
  for (size_t i = 0; i < bad.size(); ++i) out.Set(static_cast<uint32_t>(i), bad[i]);
  return out;
}

void Graph::validate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto bad = findUnsupported(*res(env), *argBackend(info, 0));
  if (bad.empty()) return;
  std::string msg = bad[0];
  if (bad.size() > 1) msg += " (and " + std::to_string(bad.size() - 1) + " more)";
  fail(env, "UNSUPPORTED_OP", msg);
}

// allocate(backend, {shared}?) -> bytes of the compute buffer. Tensors without memory get a place in it.
// shared: the backend's one compute buffer, which graphs take turns in (it grows to the largest graph
// placed in it); placing this graph takes the memory of the one placed before, whose `placed` turns
// false until it is allocated again.
Napi::Value Graph::allocate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto g = res(env);
  auto b = argBackend(info, 0);
  bool shared = false;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsObject()) fail(env, "BAD_ARGUMENT", "allocate options must be an object");
    Napi::Value v = info[1].As<Napi::Object>().Get("shared");
    if (!v.IsUndefined() && !v.IsBoolean()) fail(env, "BAD_ARGUMENT", "shared must be a boolean");
    shared = !v.IsUndefined() && v.As<Napi::Boolean>().Value();
  }
  if (g->busy.load()) fail(env, "BUSY", "the graph is computing");
  if (shared) {
    std::lock_guard<std::mutex> lock(b->sharedMu);
    if (b->sharedBy && b->sharedBy != g.get() && b->sharedBy->busy.load())
      fail(env, "BUSY", "another graph is computing in the backend's shared compute buffer");
  }
  if (g->shared && g->allocatedFor) {
    std::lock_guard<std::mutex> lock(g->allocatedFor->sharedMu);
    if (g->allocatedFor->sharedBy == g.get()) g->allocatedFor->sharedBy = nullptr;
  }
  const bool sameBackend = g->allocatedFor == b;
  g->shared = false;
  g->allocatedFor = nullptr;
  // Forget earlier placements: a new allocator would otherwise keep pointers into freed memory.
  for (ggml_tensor* t : g->owned) {
    t->data = nullptr;
    t->buffer = nullptr;
  }
  g->placedIn.clear();
  // its own allocator serves one backend's buffer type
  if (g->allocr && (shared || !sameBackend)) {
    ggml_gallocr_free(g->allocr);
    g->allocr = nullptr;
  }
  size_t bytes = 0;
  if (shared) {
    std::lock_guard<std::mutex> lock(b->sharedMu);
    if (b->sharedBy) b->sharedBy->unplace();
    b->sharedBy = nullptr;
    if (!b->shared) b->shared = ggml_gallocr_new(ggml_backend_get_default_buffer_type(b->backend));
    // planned for this graph: the allocator's last plan was another graph's, which may match in
    // node count and sizes but not in which tensors are alive together
    if (!ggml_gallocr_reserve(b->shared, g->graph) || !ggml_gallocr_alloc_graph(b->shared, g->graph))
      fail(env, "OUT_OF_MEMORY", "could not allocate the shared compute buffer for a " +
                                     std::to_string(ggml_graph_n_nodes(g->graph)) + "-node graph");
    b->sharedBy = g.get();
    bytes = ggml_gallocr_get_buffer_size(b->shared, 0);
  } else {
    if (!g->allocr) g->allocr = ggml_gallocr_new(ggml_backend_get_default_buffer_type(b->backend));
    if (!ggml_gallocr_alloc_graph(g->allocr, g->graph))
      fail(env, "OUT_OF_MEMORY", "could not allocate the compute buffer of a " +
                                     std::to_string(ggml_graph_n_nodes(g->graph)) + "-node graph");
    bytes = ggml_gallocr_get_buffer_size(g->allocr, 0);
  }
  g->allocatedFor = b;
  g->shared = shared;
  for (ggml_tensor* t : g->owned)
    if (t->buffer && std::find(g->placedIn.begin(), g->placedIn.end(), t->buffer) == g->placedIn.end()) g->placedIn.push_back(t->buffer);
  return Napi::Number::New(env, static_cast<double>(bytes));
}

Napi::Value Graph::isPlaced(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), res_ && res_->placed());
}

// A compute deadline, checked by ggml's abort callback after every node (thread 0 of the compute
// calls it, so the counter needs no atomics) and by the binding before the first.
struct Deadline {
  std::chrono::steady_clock::time_point at;
  double ms = 0;
  std::vector<int> computed;  // the nodes ggml computes (not views, reshapes, ...), in order
  size_t calls = 0;           // callbacks so far: nodes computed
  int nodesDone = 0;          // when it hit: the nodes of the graph that had run
  bool hit = false;
};

static bool pastDeadline(void* data) {
  auto* d = static_cast<Deadline*>(data);
  const size_t done = ++d->calls;
  // after the last node the result is whole: nothing left to abort
  if (done >= d->computed.size() || std::chrono::steady_clock::now() < d->at) return false;
  d->hit = true;
  d->nodesDone = d->computed[done - 1] + 1;
  return true;
}

static bool isComputed(const ggml_tensor* t) {
  switch (t->op) {
    case GGML_OP_NONE:
    case GGML_OP_RESHAPE:
    case GGML_OP_TRANSPOSE:
    case GGML_OP_VIEW:
    case GGML_OP_PERMUTE: return false;
    default: return (t->flags & GGML_TENSOR_FLAG_COMPUTE) != 0;
  }
}

// The backend's abort-callback setter (the CPU's; null where a backend has none, e.g. CUDA: there
// the deadline is checked only before the graph starts).
using SetAbortCallback = void (*)(ggml_backend_t, ggml_abort_callback, void*);
static SetAbortCallback abortSetter(const BackendRes& b) {
  ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(b.device);
  return reg ? reinterpret_cast<SetAbortCallback>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback")) : nullptr;
}

// Options argument i: {timeoutMs?: number >= 0}; the deadline runs from this call.
static std::shared_ptr<Deadline> argDeadline(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || info[i].IsUndefined() || info[i].IsNull()) return nullptr;
  if (!info[i].IsObject()) fail(info.Env(), "BAD_ARGUMENT", "compute options must be an object");
  Napi::Value t = info[i].As<Napi::Object>().Get("timeoutMs");
  if (t.IsUndefined()) return nullptr;
  double ms = t.IsNumber() ? t.As<Napi::Number>().DoubleValue() : -1;
  if (!(ms >= 0) || !std::isfinite(ms)) fail(info.Env(), "BAD_ARGUMENT", "timeoutMs must be a finite number >= 0");
  auto d = std::make_shared<Deadline>();
  d->ms = ms;
  d->at = std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(ms));
  return d;
}

static std::string formatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", ms);
  return buf;
}

// Runs the whole graph, or (perNode) one single-node view of it after another, on the backend's
// compute thread; perNode fills `ms` with each node's wall time. With a deadline, a graph still
// running when it passes stops between nodes: NativeError DEADLINE with nodesDone and nodeCount.
static Napi::Value launch(const Napi::CallbackInfo& info, std::shared_ptr<GraphRes> g, bool perNode) {
  Napi::Env env = info.Env();
  auto b = argBackend(info, 0);
  auto deadline = argDeadline(info, 1);
  if (g->allocatedFor != b) fail(env, "NOT_ALLOCATED", "allocate the graph on this backend before computing it");
  if (!g->placed())
    fail(env, "NOT_ALLOCATED", "the graph's memory went to another graph of the backend's shared compute buffer; allocate it again");
  for (const ggml_tensor* t : g->tensors)
    if (!t->data) fail(env, "NOT_ALLOCATED", "the graph reads " + describe(t) + ", which has no memory (its graph was freed or displaced)");
  bool expected = false;
  if (!g->busy.compare_exchange_strong(expected, true)) fail(env, "BUSY", "the graph is already computing");
  auto ms = std::make_shared<std::vector<double>>();
  auto* worker = new PromiseWorker(
      env,
      [g, b, perNode, ms, deadline](PromiseWorker& w) {
        std::lock_guard<std::mutex> lock(b->computeMu);
        ggml_status status = GGML_STATUS_FAILED;
        const int n = ggml_graph_n_nodes(g->graph);
        b->computeThread->run([&] {
          if (deadline && std::chrono::steady_clock::now() >= deadline->at) {
            deadline->hit = true;  // it passed while the graph waited for the backend
            status = GGML_STATUS_ABORTED;
            return;
          }
          if (b->isCpu) enableFlushToZero(b->threads);
          if (!perNode) {
            SetAbortCallback setAbort = deadline ? abortSetter(*b) : nullptr;
            if (setAbort) {
              for (int i = 0; i < n; ++i)
                if (isComputed(ggml_graph_node(g->graph, i))) deadline->computed.push_back(i);
              setAbort(b->backend, pastDeadline, deadline.get());
            }
            status = ggml_backend_graph_compute(b->backend, g->graph);
            if (setAbort) setAbort(b->backend, nullptr, nullptr);
            return;
          }
          ms->reserve(static_cast<size_t>(n));
          ggml_init_params params{ggml_graph_overhead_custom(1, false), nullptr, true};
          ggml_context* scratch = ggml_init(params);
          ggml_cgraph* one = scratch ? ggml_new_graph_custom(scratch, 1, false) : nullptr;
          status = one ? GGML_STATUS_SUCCESS : GGML_STATUS_ALLOC_FAILED;
          for (int i = 0; i < n && status == GGML_STATUS_SUCCESS; ++i) {
            if (deadline && i > 0 && std::chrono::steady_clock::now() >= deadline->at) {
              deadline->hit = true;
              deadline->nodesDone = i;
              status = GGML_STATUS_ABORTED;
              break;
            }
            ggml_graph_clear(one);
            ggml_graph_add_node(one, ggml_graph_node(g->graph, i));
            auto t0 = std::chrono::steady_clock::now();
            status = ggml_backend_graph_compute(b->backend, one);
            ms->push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          }
          if (scratch) ggml_free(scratch);
        });
        g->busy.store(false);
        if (status == GGML_STATUS_ABORTED && deadline && deadline->hit)
          w.failWith("DEADLINE",
                     "graph compute ran past its " + formatMs(deadline->ms) + " ms deadline after node " +
                         std::to_string(deadline->nodesDone) + " of " + std::to_string(n),
                     {{"nodesDone", static_cast<double>(deadline->nodesDone)}, {"nodeCount", static_cast<double>(n)}, {"timeoutMs", deadline->ms}});
        else if (status != GGML_STATUS_SUCCESS)
          w.failWith("COMPUTE", std::string("graph compute failed: ") + ggml_status_to_string(status));
      },
      perNode ? PromiseWorker::Result([ms](Napi::Env e) -> Napi::Value {
        Napi::Array out = Napi::Array::New(e, ms->size());
        for (size_t i = 0; i < ms->size(); ++i) out.Set(static_cast<uint32_t>(i), ms->at(i));
        return out;
      })
              : PromiseWorker::Result(nullptr));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

// compute(backend, {timeoutMs}?) -> Promise<void>, run on the libuv pool.
Napi::Value Graph::compute(const Napi::CallbackInfo& info) { return launch(info, res(info.Env()), false); }

// profile(backend, {timeoutMs}?) -> Promise<number[]>: the graph's result, computed node by node, with each node's ms.
Napi::Value Graph::profile(const Napi::CallbackInfo& info) { return launch(info, res(info.Env()), true); }

void Graph::dispose(const Napi::CallbackInfo&) { res_.reset(); }

}  // namespace jepa
