// What the CPU flash kernel's per-level translation units share (not part of the addon's API).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ggml.h"

namespace jepa::flash {

constexpr int64_t kQueries = 48;     // queries per block: the scores' row width (3 groups of 16)
constexpr int64_t kKeyBlock = 1024;  // keys per fma chain of P·V

// Key ranges [first, second) of a query block that some query sees; the rest are masked for all.
using KeyRuns = std::vector<std::pair<int64_t, int64_t>>;

struct Scratch {
  std::vector<float> keys;     // [key tiles][D][8]: the head's keys as the broadcast operand
  std::vector<float> queries;  // [3][D][16]: a block's queries, 16 per group, zero-padded
  std::vector<float> probs;    // [NK][48]: scores, then probabilities, of every key for the block's queries
  std::vector<float> values;   // [NK][DVP]: the head's values, contiguous (in a fused qkv tensor rows are far apart), zero-padded
  std::vector<float> out;      // [tile rows][DVP]: a tile's output where DV is not a multiple of 16
  std::vector<float> rounded;  // [8][D]: a tile of keys rounded through f16
  KeyRuns runs;
};

// The value width the kernels run at: DV rounded up to whole 16-float vectors. The padding columns of V
// are zeros, so the first DV outputs are the bits they would be at DV, and only those are written.
inline int64_t paddedWidth(int64_t dv) { return (dv + 15) / 16 * 16; }

// One head of one item of the node's operands (flash_attn.h): k / v heads and items broadcast over
// q's as in ggml_flash_attn_ext (grouped-query style).
struct HeadView {
  int64_t d, nq, heads, nk, dv;
  const ggml_fp16_t* mask;  // key-major: key j's row at mask + j·maskStride; null without a mask
  int64_t maskStride;
  const char* keys;
  const char* queries;
  const char* values;
  size_t keyStride, queryStride, valueStride;

  const float* key(int64_t j) const { return reinterpret_cast<const float*>(keys + j * keyStride); }
  const float* query(int64_t t) const { return reinterpret_cast<const float*>(queries + t * queryStride); }
  const float* value(int64_t j) const { return reinterpret_cast<const float*>(values + j * valueStride); }
};

inline HeadView headView(const ggml_tensor* dst, int64_t item, int64_t head) {
  const ggml_tensor* q = dst->src[0];
  const ggml_tensor* k = dst->src[1];
  const ggml_tensor* v = dst->src[2];
  const ggml_tensor* mask = dst->src[3];
  HeadView h{};
  h.d = q->ne[0];
  h.nq = q->ne[1];
  h.heads = q->ne[2];
  h.nk = k->ne[1];
  h.dv = v->ne[0];
  const int64_t kh = head / (h.heads / k->ne[2]), ki = item / (q->ne[3] / k->ne[3]);
  const int64_t vh = head / (h.heads / v->ne[2]), vi = item / (q->ne[3] / v->ne[3]);
  h.keys = static_cast<const char*>(k->data) + kh * k->nb[2] + ki * k->nb[3];
  h.queries = static_cast<const char*>(q->data) + head * q->nb[2] + item * q->nb[3];
  h.values = static_cast<const char*>(v->data) + vh * v->nb[2] + vi * v->nb[3];
  h.keyStride = k->nb[1];
  h.queryStride = q->nb[1];
  h.valueStride = v->nb[1];
  if (mask) {
    h.mask = reinterpret_cast<const ggml_fp16_t*>(static_cast<const char*>(mask->data) + (head % mask->ne[2]) * mask->nb[2] + (item % mask->ne[3]) * mask->nb[3]);
    h.maskStride = static_cast<int64_t>(mask->nb[1] / sizeof(ggml_fp16_t));
  }
  return h;
}

// Queries [q0, q1) of one head of one item, written to dst (flash_attn.h's operands in dst->src).
using TaskFn = void (*)(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, bool kvF16, Scratch& sc);

extern const TaskFn kAvx512Task;  // flash_attn_avx512.cpp; null without AVX-512 code
extern const TaskFn kAvx2Task;    // flash_attn_avx2.cpp; null without libmvec

}  // namespace jepa::flash
