// The ggml ops exposed on Context. ggml aborts the process on a failed shape assertion, so every
// op checks ggml's preconditions first and throws a NativeError naming the operands instead.
#include <cmath>

#include "cpu/gelu_erf.h"
#include "cpu/flash_attn.h"
#include "cpu/layer_norm.h"
#include "cpu/rope_pairs.h"
#include "cpu/panel.h"
#include "wrappers.h"

namespace jepa {
namespace {

struct OpCall {
  const Napi::CallbackInfo& info;
  Napi::Env env;
  std::shared_ptr<ContextRes> ctx;
  const char* op;

  OpCall(const Napi::CallbackInfo& i, const char* name) : info(i), env(i.Env()), op(name) {
    if (!info.This().IsObject()) fail(env, "BAD_ARGUMENT", std::string(op) + " must be called on a Context");
    Context* c = Context::Unwrap(info.This().As<Napi::Object>());
    ctx = c->res(env);
    c->reserve(env, 2);
  }
  ggml_tensor* in(size_t i, const char* what) {
    Tensor* t = argTensor(info, i, what);
    ctx->addInput(t->owner());
    return t->tensor(env);
  }
  ggml_tensor* optIn(size_t i, const char* what) {
    Tensor* t = argOptionalTensor(info, i, what);
    if (!t) return nullptr;
    ctx->addInput(t->owner());
    return t->tensor(env);
  }
  void require(bool ok, const std::string& why) {
    if (!ok) fail(env, "BAD_SHAPE", std::string(op) + ": " + why);
  }
  Napi::Value out(ggml_tensor* t) {
    if (!t) fail(env, "NATIVE", std::string(op) + " failed");
    const bool custom = t->op == GGML_OP_CUSTOM || t->op == GGML_OP_MAP_CUSTOM1 || t->op == GGML_OP_MAP_CUSTOM2 || t->op == GGML_OP_MAP_CUSTOM3;
    if (custom && t->name[0]) ctx->opLabels[t] = t->name;
    return Tensor::wrap(env, ctx, t);
  }
  ggml_context* g() { return ctx->ctx; }
};

// ggml.c keeps this check private: a's rows match b's and b's outer dims broadcast over a's.
bool canMulMat(const ggml_tensor* a, const ggml_tensor* b) {
  return a->ne[0] == b->ne[0] && b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0;
}

std::string both(const ggml_tensor* a, const ggml_tensor* b) { return describe(a) + " and " + describe(b); }

Napi::Value newTensor(const Napi::CallbackInfo& info) {
  OpCall c(info, "newTensor");
  ggml_type type = argType(info, 0);
  std::vector<int64_t> ne = argDims(info, 1, "shape");
  int n = static_cast<int>(info[1].As<Napi::Array>().Length());
  c.require(ne[0] % ggml_blck_size(type) == 0, std::string("ne[0] = ") + std::to_string(ne[0]) +
                                                    " is not a multiple of the " + ggml_type_name(type) + " block size " +
                                                    std::to_string(ggml_blck_size(type)));
  double elems = static_cast<double>(ne[0]) * ne[1] * ne[2] * ne[3];
  c.require(elems < 9.0e15, "shape too large");
  return c.out(ggml_new_tensor(c.g(), type, n, ne.data()));
}

Napi::Value mulMat(const Napi::CallbackInfo& info) {
  OpCall c(info, "mulMat");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "b");
  c.require(canMulMat(a, b) && !ggml_is_transposed(a), "cannot multiply " + both(a, b));
  return c.out(ggml_mul_mat(c.g(), a, b));
}

template <ggml_tensor* (*F)(ggml_context*, ggml_tensor*, ggml_tensor*)>
Napi::Value binary(const Napi::CallbackInfo& info, const char* name) {
  OpCall c(info, name);
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "b");
  c.require(ggml_can_repeat(b, a), "cannot broadcast " + describe(b) + " onto " + describe(a));
  return c.out(F(c.g(), a, b));
}

Napi::Value add(const Napi::CallbackInfo& info) { return binary<ggml_add>(info, "add"); }
Napi::Value sub(const Napi::CallbackInfo& info) { return binary<ggml_sub>(info, "sub"); }
Napi::Value mul(const Napi::CallbackInfo& info) { return binary<ggml_mul>(info, "mul"); }
Napi::Value div(const Napi::CallbackInfo& info) { return binary<ggml_div>(info, "div"); }

template <ggml_tensor* (*F)(ggml_context*, ggml_tensor*)>
Napi::Value unary(const Napi::CallbackInfo& info, const char* name, bool rowsContiguous) {
  OpCall c(info, name);
  ggml_tensor* a = c.in(0, "a");
  if (rowsContiguous) c.require(ggml_is_contiguous_rows(a), "rows of " + describe(a) + " are not contiguous");
  return c.out(F(c.g(), a));
}

Napi::Value gelu(const Napi::CallbackInfo& info) { return unary<ggml_gelu>(info, "gelu", true); }
Napi::Value geluErf(const Napi::CallbackInfo& info) { return unary<ggml_gelu_erf>(info, "geluErf", true); }
// layerNormCpu(x, w, b, eps): norm(x)·w + b per row in one CPU node; x contiguous F32, w and b F32 [ne0].
Napi::Value layerNormCpu(const Napi::CallbackInfo& info) {
  OpCall c(info, "layerNormCpu");
  ggml_tensor* x = c.in(0, "x");
  ggml_tensor* w = c.in(1, "w");
  ggml_tensor* b = c.in(2, "b");
  const float eps = static_cast<float>(argNumber(info, 3, "eps"));
  c.require(x->type == GGML_TYPE_F32 && ggml_is_contiguous(x), describe(x) + " is not a contiguous F32 tensor");
  for (ggml_tensor* t : {w, b})
    c.require(t->type == GGML_TYPE_F32 && ggml_is_contiguous(t) && ggml_nelements(t) == x->ne[0],
              describe(t) + " is not a contiguous F32 vector of " + std::to_string(x->ne[0]));
  c.require(eps >= 0.0f, "eps must be >= 0");
  return c.out(jepa::layerNormCpu(c.g(), x, w, b, eps));
}

// ropePairsCpu(x, cos, sin): x·cos + swap(x)·sin in one CPU node; x F32 [hd, heads, tokens, B] with
// contiguous rows, cos and sin contiguous F32 [hd, 1, tokens, 1]. The result is contiguous.
Napi::Value ropePairsCpu(const Napi::CallbackInfo& info) {
  OpCall c(info, "ropePairsCpu");
  ggml_tensor* x = c.in(0, "x");
  ggml_tensor* cos = c.in(1, "cos");
  ggml_tensor* sin = c.in(2, "sin");
  c.require(x->type == GGML_TYPE_F32 && x->nb[0] == sizeof(float) && x->ne[0] % 2 == 0, describe(x) + " is not F32 with contiguous rows of even length");
  for (ggml_tensor* t : {cos, sin})
    c.require(t->type == GGML_TYPE_F32 && ggml_is_contiguous(t) && t->ne[0] == x->ne[0] && t->ne[1] == 1 && t->ne[2] == x->ne[2] && t->ne[3] == 1,
              describe(t) + " is not a contiguous F32 table of [" + std::to_string(x->ne[0]) + ", 1, " + std::to_string(x->ne[2]) + ", 1]");
  return c.out(jepa::ropePairsCpu(c.g(), x, cos, sin));
}

// "libm" (undefined too) or "rational": gelu_erf.h's GeluErf.
jepa::GeluErf geluErfOf(const OpCall& c, const Napi::Value& v) {
  if (v.IsUndefined()) return jepa::GeluErf::Libm;
  const std::string name = v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
  if (name != "libm" && name != "rational") fail(c.env, "BAD_ARGUMENT", std::string(c.op) + ": erf must be 'libm' or 'rational'");
  return name == "rational" ? jepa::GeluErf::Rational : jepa::GeluErf::Libm;
}

Napi::Value geluErfCpu(const Napi::CallbackInfo& info) {
  OpCall c(info, "geluErfCpu");
  ggml_tensor* a = c.in(0, "a");
  c.require(a->type == GGML_TYPE_F32 && ggml_is_contiguous(a), describe(a) + " is not a contiguous F32 tensor");
  return c.out(jepa::geluErfCpu(c.g(), a, geluErfOf(c, info.Length() > 1 ? info[1] : c.env.Undefined())));
}
Napi::Value panelMulMat(const Napi::CallbackInfo& info) {
  OpCall c(info, "panelMulMat");
  ggml_tensor* panel = c.in(0, "panel");
  ggml_tensor* x = c.in(1, "x");
  int64_t rows = argInt(info, 2, "rows");
  ggml_type type = argType(info, 3);
  c.require(x->type == GGML_TYPE_F32 && ggml_is_contiguous(x), describe(x) + " is not a contiguous F32 tensor");
  const int64_t bytes = panelBytes(type, rows, x->ne[0]);
  c.require(bytes >= 0, std::string(ggml_type_name(type)) + " has no panel form of " + std::to_string(rows) + " rows of " + std::to_string(x->ne[0]));
  c.require(panel->type == GGML_TYPE_I8 && ggml_nelements(panel) == bytes,
            describe(panel) + " is not the panel of a " + std::to_string(rows) + " x " + std::to_string(x->ne[0]) + " " + ggml_type_name(type) + " matrix");
  const char* best = panelBestKernel(type);
  std::string kernel = info.Length() > 4 && !info[4].IsUndefined() ? argString(info, 4, "kernel") : std::string(best ? best : "");
  if (!panelKernelAvailable(type, kernel.c_str()))
    fail(c.env, "UNSUPPORTED", kernel.empty() ? std::string("this CPU has no panel kernel for ") + ggml_type_name(type)
                                              : "this CPU has no panel kernel '" + kernel + "' for " + ggml_type_name(type));
  PanelEpilogue then;
  if (info.Length() > 5 && info[5].IsObject()) {
    Napi::Object o = info[5].As<Napi::Object>();
    const auto operand = [&](const char* key) -> ggml_tensor* {
      Napi::Value v = o.Get(key);
      if (v.IsUndefined() || v.IsNull()) return nullptr;
      Tensor* t = valueTensor(c.env, v, key);
      c.ctx->addInput(t->owner());
      return t->tensor(c.env);
    };
    then.bias = operand("bias");
    then.scale = operand("scale");
    then.add = operand("add");
    then.gelu = o.Get("gelu").ToBoolean();
    then.erf = geluErfOf(c, o.Get("erf"));
  }
  for (ggml_tensor* v : {then.bias, then.scale})
    if (v)
      c.require(v->type == GGML_TYPE_F32 && ggml_is_contiguous(v) && ggml_nelements(v) == rows,
                describe(v) + " is not a contiguous F32 vector of " + std::to_string(rows));
  if (then.add)
    c.require(then.add->type == GGML_TYPE_F32 && ggml_is_contiguous(then.add) && then.add->ne[0] == rows && then.add->ne[1] == x->ne[1] &&
                  then.add->ne[2] == x->ne[2] && then.add->ne[3] == x->ne[3],
              "add " + describe(then.add) + " is not a contiguous F32 tensor of the product's shape");
  return c.out(jepa::panelMulMat(c.g(), panel, x, rows, type, kernel.c_str(), then));
}
Napi::Value silu(const Napi::CallbackInfo& info) { return unary<ggml_silu>(info, "silu", true); }
// swiglu(a): silu(first half of each row) * second half, ggml_swiglu (ne0 halves); transformers' chunk(2) order.
Napi::Value swiglu(const Napi::CallbackInfo& info) {
  OpCall c(info, "swiglu");
  ggml_tensor* a = c.in(0, "a");
  c.require((a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && ggml_is_contiguous_1(a) && a->ne[0] % 2 == 0,
            describe(a) + " is not an F32 / F16 tensor with contiguous rows of even length");
  return c.out(ggml_swiglu(c.g(), a));
}
Napi::Value tanh_(const Napi::CallbackInfo& info) { return unary<ggml_tanh>(info, "tanh", true); }
Napi::Value exp_(const Napi::CallbackInfo& info) { return unary<ggml_exp>(info, "exp", true); }
Napi::Value sqr(const Napi::CallbackInfo& info) { return unary<ggml_sqr>(info, "sqr", false); }
Napi::Value sqrt_(const Napi::CallbackInfo& info) { return unary<ggml_sqrt>(info, "sqrt", false); }
Napi::Value mean(const Napi::CallbackInfo& info) { return unary<ggml_mean>(info, "mean", false); }
Napi::Value sumRows(const Napi::CallbackInfo& info) { return unary<ggml_sum_rows>(info, "sumRows", false); }
Napi::Value transpose(const Napi::CallbackInfo& info) { return unary<ggml_transpose>(info, "transpose", false); }

Napi::Value cont(const Napi::CallbackInfo& info) {
  OpCall c(info, "cont");
  ggml_tensor* a = c.in(0, "a");
  if (info.Length() < 2 || info[1].IsUndefined()) return c.out(ggml_cont(c.g(), a));
  std::vector<int64_t> ne = argDims(info, 1, "shape");
  c.require(ne[0] * ne[1] * ne[2] * ne[3] == ggml_nelements(a), "shape does not match the elements of " + describe(a));
  return c.out(ggml_cont_4d(c.g(), a, ne[0], ne[1], ne[2], ne[3]));
}

Napi::Value scale(const Napi::CallbackInfo& info) {
  OpCall c(info, "scale");
  ggml_tensor* a = c.in(0, "a");
  return c.out(ggml_scale(c.g(), a, static_cast<float>(argNumber(info, 1, "s"))));
}

Napi::Value norm(const Napi::CallbackInfo& info) {
  OpCall c(info, "norm");
  ggml_tensor* a = c.in(0, "a");
  double eps = argNumber(info, 1, "eps");
  c.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative");
  return c.out(ggml_norm(c.g(), a, static_cast<float>(eps)));
}

Napi::Value clamp(const Napi::CallbackInfo& info) {
  OpCall c(info, "clamp");
  ggml_tensor* a = c.in(0, "a");
  float lo = static_cast<float>(argNumber(info, 1, "min"));
  float hi = static_cast<float>(argNumber(info, 2, "max"));
  c.require(lo <= hi, "min must not exceed max");
  return c.out(ggml_clamp(c.g(), a, lo, hi));
}

Napi::Value softMaxExt(const Napi::CallbackInfo& info) {
  OpCall c(info, "softMaxExt");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* mask = c.optIn(1, "mask");
  float s = static_cast<float>(argNumber(info, 2, "scale"));
  float maxBias = info.Length() > 3 ? static_cast<float>(argNumber(info, 3, "maxBias")) : 0.0f;
  c.require(ggml_is_contiguous(a), describe(a) + " is not contiguous");
  if (mask) {
    c.require(mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32, "mask must be f16 or f32");
    c.require(ggml_is_contiguous(mask), "mask is not contiguous");
    c.require(mask->ne[0] == a->ne[0] && mask->ne[1] >= a->ne[1] && a->ne[2] % mask->ne[2] == 0 &&
                  a->ne[3] % mask->ne[3] == 0,
              "mask " + describe(mask) + " does not cover " + describe(a));
  }
  c.require(maxBias <= 0.0f || mask, "maxBias needs a mask");
  return c.out(ggml_soft_max_ext(c.g(), a, mask, s, maxBias));
}

// What ggml_flash_attn_ext and this engine's CPU kernel both require of their operands.
void requireAttention(OpCall& c, ggml_tensor* q, ggml_tensor* k, ggml_tensor* v, ggml_tensor* mask) {
  c.require(canMulMat(k, q), "q " + describe(q) + " and k " + describe(k) + " do not match");
  c.require(q->ne[3] == k->ne[3] && q->ne[3] == v->ne[3], "q, k and v batch sizes differ");
  c.require(v->ne[1] == k->ne[1] && v->ne[2] == k->ne[2], "k " + describe(k) + " and v " + describe(v) + " differ");
  if (mask) {
    c.require(mask->type == GGML_TYPE_F16, "the flash-attention mask must be f16");
    c.require(ggml_is_contiguous(mask), "mask is not contiguous");
    c.require(mask->ne[0] == k->ne[1] && mask->ne[1] >= q->ne[1] && q->ne[2] % mask->ne[2] == 0 &&
                  q->ne[3] % mask->ne[3] == 0,
              "mask " + describe(mask) + " does not cover q " + describe(q) + " x k " + describe(k));
  }
}

// q [d, n_q, heads, B], k [d, n_kv, heads_kv, B], v [dv, n_kv, heads_kv, B], mask f16 [n_kv, >=n_q, *, *]
// -> [dv, heads, n_q, B]
Napi::Value flashAttnExt(const Napi::CallbackInfo& info) {
  OpCall c(info, "flashAttnExt");
  ggml_tensor* q = c.in(0, "q");
  ggml_tensor* k = c.in(1, "k");
  ggml_tensor* v = c.in(2, "v");
  ggml_tensor* mask = c.optIn(3, "mask");
  float s = static_cast<float>(argNumber(info, 4, "scale"));
  float maxBias = info.Length() > 5 ? static_cast<float>(argNumber(info, 5, "maxBias")) : 0.0f;
  float softcap = info.Length() > 6 ? static_cast<float>(argNumber(info, 6, "logitSoftcap")) : 0.0f;
  requireAttention(c, q, k, v, mask);
  c.require(maxBias <= 0.0f || mask, "maxBias needs a mask");
  return c.out(ggml_flash_attn_ext(c.g(), q, k, v, mask, s, maxBias, softcap));
}

// flashAttnExt's operands and result, on this engine's CPU kernel: q, k and v F32 with contiguous
// rows (kvF16: k and v rounded through f16 inside), any dv; the mask key-major (F16 [>= n_q, n_kv, *, *]: key j's row holds every
// query's entry), i.e. cont(transpose(flashAttnExt's mask)).
Napi::Value flashAttnCpu(const Napi::CallbackInfo& info) {
  OpCall c(info, "flashAttnCpu");
  ggml_tensor* q = c.in(0, "q");
  ggml_tensor* k = c.in(1, "k");
  ggml_tensor* v = c.in(2, "v");
  ggml_tensor* mask = c.optIn(3, "maskByKey");
  float s = static_cast<float>(argNumber(info, 4, "scale"));
  const bool kvF16 = info.Length() > 5 && info[5].ToBoolean();
  requireAttention(c, q, k, v, nullptr);
  for (ggml_tensor* t : {q, k, v}) {
    c.require(t->type == GGML_TYPE_F32, "q, k and v must be f32: " + describe(t));
    c.require(t->nb[0] == sizeof(float), describe(t) + " does not have contiguous rows");
  }
  if (mask) {
    c.require(mask->type == GGML_TYPE_F16 && ggml_is_contiguous(mask), "the key-major mask must be contiguous f16: " + describe(mask));
    c.require(mask->ne[1] == k->ne[1] && mask->ne[0] >= q->ne[1] && q->ne[2] % mask->ne[2] == 0 && q->ne[3] % mask->ne[3] == 0,
              "key-major mask " + describe(mask) + " does not cover q " + describe(q) + " x k " + describe(k));
  }
  if (!flashAttnCpuKernel()) fail(c.env, "UNSUPPORTED", "this build or CPU has no CPU flash-attention kernel (AVX-512, or AVX2 with libmvec)");
  return c.out(jepa::flashAttnCpu(c.g(), q, k, v, mask, s, kvF16));
}

Napi::Value concat(const Napi::CallbackInfo& info) {
  OpCall c(info, "concat");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "b");
  int64_t dim = argInt(info, 2, "dim");
  c.require(dim >= 0 && dim < GGML_MAX_DIMS, "dim must be 0..3");
  c.require(a->type == b->type, "types differ: " + both(a, b));
  for (int d = 0; d < GGML_MAX_DIMS; ++d)
    if (d != dim) c.require(a->ne[d] == b->ne[d], "shapes differ outside dim " + std::to_string(dim) + ": " + both(a, b));
  return c.out(ggml_concat(c.g(), a, b, static_cast<int>(dim)));
}

Napi::Value getRows(const Napi::CallbackInfo& info) {
  OpCall c(info, "getRows");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "rows");
  c.require(b->type == GGML_TYPE_I32, "row ids must be i32");
  c.require(a->ne[2] == b->ne[1] && a->ne[3] == b->ne[2] && b->ne[3] == 1, "row ids " + describe(b) + " do not index " + describe(a));
  return c.out(ggml_get_rows(c.g(), a, b));
}

Napi::Value roll(const Napi::CallbackInfo& info) {
  OpCall c(info, "roll");
  ggml_tensor* a = c.in(0, "a");
  int shifts[4];
  for (int i = 0; i < 4; ++i) {
    int64_t s = info.Length() > static_cast<size_t>(i + 1) ? argInt(info, i + 1, "shift") : 0;
    c.require(std::llabs(s) < a->ne[i] || s == 0, "shift " + std::to_string(s) + " on dim " + std::to_string(i) + " of " + describe(a));
    shifts[i] = static_cast<int>(s);
  }
  c.require(a->nb[0] == ggml_type_size(a->type), "rows of " + describe(a) + " are strided");
  return c.out(ggml_roll(c.g(), a, shifts[0], shifts[1], shifts[2], shifts[3]));
}

Napi::Value reshape(const Napi::CallbackInfo& info) {
  OpCall c(info, "reshape");
  ggml_tensor* a = c.in(0, "a");
  std::vector<int64_t> ne = argDims(info, 1, "shape");
  c.require(ggml_is_contiguous(a), describe(a) + " is not contiguous (cont it first)");
  c.require(ne[0] * ne[1] * ne[2] * ne[3] == ggml_nelements(a), "shape does not match the elements of " + describe(a));
  return c.out(ggml_reshape_4d(c.g(), a, ne[0], ne[1], ne[2], ne[3]));
}

// view(a, shape, strides? (bytes, nb[1..3]), byteOffset = 0)
Napi::Value view(const Napi::CallbackInfo& info) {
  OpCall c(info, "view");
  ggml_tensor* a = c.in(0, "a");
  std::vector<int64_t> ne = argDims(info, 1, "shape");
  size_t ts = ggml_type_size(a->type);
  int64_t blck = ggml_blck_size(a->type);
  c.require(ne[0] % blck == 0, "ne[0] is not a multiple of the block size");
  size_t nb[4];
  nb[0] = ts;
  nb[1] = ggml_row_size(a->type, ne[0]);
  nb[2] = nb[1] * ne[1];
  nb[3] = nb[2] * ne[2];
  if (info.Length() > 2 && info[2].IsArray()) {
    Napi::Array s = info[2].As<Napi::Array>();
    c.require(s.Length() == 3, "strides are nb[1..3] in bytes");
    for (uint32_t i = 0; i < 3; ++i) {
      Napi::Value v = s.Get(i);
      c.require(v.IsNumber() && v.As<Napi::Number>().DoubleValue() >= 0, "strides must be non-negative numbers");
      nb[i + 1] = static_cast<size_t>(v.As<Napi::Number>().DoubleValue());
    }
  }
  int64_t offset = info.Length() > 3 ? argInt(info, 3, "byteOffset") : 0;
  c.require(offset >= 0, "byteOffset must be non-negative");
  size_t last = static_cast<size_t>(offset) + ggml_row_size(a->type, ne[0]);
  for (int i = 1; i < 4; ++i) last += static_cast<size_t>(ne[i] - 1) * nb[i];
  c.require(last <= ggml_nbytes(a), "view reaches byte " + std::to_string(last) + " of " + describe(a) + " (" +
                                       std::to_string(ggml_nbytes(a)) + " bytes)");
  return c.out(ggml_view_4d(c.g(), a, ne[0], ne[1], ne[2], ne[3], nb[1], nb[2], nb[3], static_cast<size_t>(offset)));
}

Napi::Value permute(const Napi::CallbackInfo& info) {
  OpCall c(info, "permute");
  ggml_tensor* a = c.in(0, "a");
  int ax[4];
  bool used[4] = {false, false, false, false};
  for (int i = 0; i < 4; ++i) {
    int64_t v = argInt(info, i + 1, "axis");
    c.require(v >= 0 && v < 4 && !used[v], "axes must be a permutation of 0..3");
    used[v] = true;
    ax[i] = static_cast<int>(v);
  }
  return c.out(ggml_permute(c.g(), a, ax[0], ax[1], ax[2], ax[3]));
}

Napi::Value cpy(const Napi::CallbackInfo& info) {
  OpCall c(info, "cpy");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "b");
  c.require(ggml_nelements(a) == ggml_nelements(b), "element counts differ: " + both(a, b));
  return c.out(ggml_cpy(c.g(), a, b));
}

Napi::Value cast(const Napi::CallbackInfo& info) {
  OpCall c(info, "cast");
  ggml_tensor* a = c.in(0, "a");
  ggml_type type = argType(info, 1);
  c.require(a->ne[0] % ggml_blck_size(type) == 0, "ne[0] is not a multiple of the target block size");
  return c.out(ggml_cast(c.g(), a, type));
}

Napi::Value repeat(const Napi::CallbackInfo& info) {
  OpCall c(info, "repeat");
  ggml_tensor* a = c.in(0, "a");
  ggml_tensor* b = c.in(1, "like");
  c.require(ggml_can_repeat(a, b), "cannot repeat " + describe(a) + " to " + describe(b));
  return c.out(ggml_repeat(c.g(), a, b));
}

}  // namespace

void defineOps(Napi::Env env, Napi::Object proto) {
  const std::pair<const char*, Napi::Value (*)(const Napi::CallbackInfo&)> ops[] = {
      {"newTensor", newTensor}, {"mulMat", mulMat},   {"add", add},           {"sub", sub},
      {"mul", mul},             {"div", div},         {"scale", scale},       {"norm", norm},
      {"gelu", gelu},           {"geluErf", geluErf}, {"geluErfCpu", geluErfCpu}, {"layerNormCpu", layerNormCpu}, {"ropePairsCpu", ropePairsCpu}, {"panelMulMat", panelMulMat}, {"silu", silu},         {"swiglu", swiglu},     {"tanh", tanh_},
      {"exp", exp_},            {"sqr", sqr},         {"sqrt", sqrt_},        {"mean", mean},
      {"sumRows", sumRows},     {"clamp", clamp},     {"softMaxExt", softMaxExt}, {"flashAttnExt", flashAttnExt}, {"flashAttnCpu", flashAttnCpu},
      {"concat", concat},       {"getRows", getRows}, {"roll", roll},         {"cont", cont},
      {"reshape", reshape},     {"view", view},       {"permute", permute},   {"transpose", transpose},
      {"cpy", cpy},             {"cast", cast},       {"repeat", repeat},
  };
  for (auto& [name, fn] : ops) proto.Set(name, Napi::Function::New(env, fn, name));
}

}  // namespace jepa
