#include "flash_attn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(JEPA_HAVE_MVEC) && defined(__x86_64__)
#include "fma_tile.h"
#define JEPA_FLASH_CPU 1
// glibc's vector-ABI expf, 16 lanes.
extern "C" __m512 _ZGVeN16v_expf(__m512);
#endif

namespace jepa {

#if JEPA_FLASH_CPU
namespace {

using cpu::kTileRows;

constexpr int64_t kChunkRows = 64;  // queries per task: tasks are (item, head, chunk)

struct Scratch {
  std::vector<float> keys;    // [NK/16][D][16]: the head's keys, 16 per panel, zero-padded
  std::vector<float> values;  // [NK][DV]
  std::vector<float> queries; // [D][8]
  std::vector<float> scores;  // [8][NK rounded to 16]
  std::vector<float> probs;   // [NK][8]
};

// 16 scores from j (fewer at the row's end, the rest -inf), ·scale + mask.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512 scaledScores(const float* s, const ggml_fp16_t* mask, int64_t j, int64_t nk, __m512 scale) {
  const __mmask16 m = j + 16 <= nk ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (nk - j)) - 1);
  __m512 x = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), m, s + j);
  x = _mm512_mask_mul_ps(x, m, x, scale);
  if (mask) x = _mm512_mask_add_ps(x, m, x, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, mask + j)));
  return x;
}

// Softmax of one row of scores (·scale + mask) into column t of probs; returns the row's sum.
__attribute__((target("avx512f,avx512bw,avx512vl"))) float softmaxRow(const float* s, const ggml_fp16_t* mask, int64_t nk, float scale, float* probs, int t) {
  const __m512 vscale = _mm512_set1_ps(scale);
  __m512 vmax = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < nk; j += 16) vmax = _mm512_max_ps(vmax, scaledScores(s, mask, j, nk, vscale));
  const float max = _mm512_reduce_max_ps(vmax);
  if (max == -INFINITY) {  // every key masked: the row gets zeros, as in ggml
    for (int64_t j = 0; j < nk; ++j) probs[j * kTileRows + t] = 0.0f;
    return 0.0f;
  }
  const __m512 vm = _mm512_set1_ps(max);
  __m512 vsum = _mm512_setzero_ps();
  alignas(64) float e[16];
  for (int64_t j = 0; j < nk; j += 16) {
    const __m512 p = _ZGVeN16v_expf(_mm512_sub_ps(scaledScores(s, mask, j, nk, vscale), vm));
    vsum = _mm512_add_ps(vsum, p);
    _mm512_store_ps(e, p);
    const int64_t n = std::min<int64_t>(16, nk - j);
    for (int64_t i = 0; i < n; ++i) probs[(j + i) * kTileRows + t] = e[i];
  }
  return _mm512_reduce_add_ps(vsum);
}

void attendTask(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, Scratch& sc) {
  const ggml_tensor* q = dst->src[0];
  const ggml_tensor* k = dst->src[1];
  const ggml_tensor* v = dst->src[2];
  const ggml_tensor* mask = dst->src[3];
  const int64_t d = q->ne[0], nq = q->ne[1], heads = q->ne[2];
  const int64_t nk = k->ne[1], dv = v->ne[0];
  const int64_t panels = (nk + 15) / 16;
  // k/v heads and items broadcast over q's as in ggml_flash_attn_ext (grouped-query style)
  const int64_t kh = head / (heads / k->ne[2]), ki = item / (q->ne[3] / k->ne[3]);
  const int64_t vh = head / (heads / v->ne[2]), vi = item / (q->ne[3] / v->ne[3]);

  sc.keys.assign(static_cast<size_t>(panels * d * 16), 0.0f);
  sc.values.resize(static_cast<size_t>(nk * dv));
  for (int64_t j = 0; j < nk; ++j) {
    const auto* key = reinterpret_cast<const float*>(static_cast<const char*>(k->data) + j * k->nb[1] + kh * k->nb[2] + ki * k->nb[3]);
    float* panel = sc.keys.data() + (j / 16) * d * 16 + j % 16;
    for (int64_t c = 0; c < d; ++c) panel[c * 16] = key[c];
    std::memcpy(sc.values.data() + j * dv, static_cast<const char*>(v->data) + j * v->nb[1] + vh * v->nb[2] + vi * v->nb[3],
                static_cast<size_t>(dv) * sizeof(float));
  }
  sc.queries.resize(static_cast<size_t>(d * kTileRows));
  sc.scores.resize(static_cast<size_t>(kTileRows * panels * 16));
  sc.probs.resize(static_cast<size_t>(nk * kTileRows));

  const int64_t tiles = (q1 - q0 + kTileRows - 1) / kTileRows;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t t0 = q0 + (q1 - q0) * i / tiles, t1 = q0 + (q1 - q0) * (i + 1) / tiles;
    const int rows = static_cast<int>(t1 - t0);
    for (int t = 0; t < rows; ++t) {
      const auto* row = reinterpret_cast<const float*>(static_cast<const char*>(q->data) + (t0 + t) * q->nb[1] + head * q->nb[2] + item * q->nb[3]);
      for (int64_t c = 0; c < d; ++c) sc.queries[c * kTileRows + t] = row[c];
    }
    cpu::fmaRow(sc.queries.data(), rows, sc.keys.data(), panels, d * 16, 16, d, sc.scores.data(), panels * 16, true);
    float sums[kTileRows];
    for (int t = 0; t < rows; ++t) {
      const ggml_fp16_t* m = nullptr;
      if (mask)
        m = reinterpret_cast<const ggml_fp16_t*>(static_cast<const char*>(mask->data) + (t0 + t) * mask->nb[1] + (head % mask->ne[2]) * mask->nb[2] +
                                                 (item % mask->ne[3]) * mask->nb[3]);
      sums[t] = softmaxRow(sc.scores.data() + t * panels * 16, m, nk, scale, sc.probs.data(), t);
    }
    float* out = static_cast<float*>(dst->data) + ((item * nq + t0) * heads + head) * dv;
    const int64_t ldo = heads * dv;
    cpu::fmaRow(sc.probs.data(), rows, sc.values.data(), dv / 16, 16, dv, nk, out, ldo, true);
    for (int t = 0; t < rows; ++t) {
      const float inv = sums[t] == 0.0f ? 0.0f : 1.0f / sums[t];
      for (int64_t c = 0; c < dv; ++c) out[t * ldo + c] *= inv;
    }
  }
}

void flashOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  float scale;
  const auto bits = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(userdata));  // the scale travels as its bits
  std::memcpy(&scale, &bits, sizeof scale);
  const ggml_tensor* q = dst->src[0];
  const int64_t nq = q->ne[1], heads = q->ne[2], items = q->ne[3];
  const int64_t chunks = (nq + kChunkRows - 1) / kChunkRows;
  thread_local Scratch sc;
  for (int64_t task = ith; task < items * heads * chunks; task += nth) {
    const int64_t c = task % chunks, head = (task / chunks) % heads, item = task / (chunks * heads);
    attendTask(dst, item, head, nq * c / chunks, nq * (c + 1) / chunks, scale, sc);
  }
}

}  // namespace

const char* flashAttnCpuKernel() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? "avx512" : nullptr;
}

ggml_tensor* flashAttnCpu(ggml_context* ctx, ggml_tensor* q, ggml_tensor* k, ggml_tensor* v, ggml_tensor* mask, float scale) {
  ggml_tensor* args[4] = {q, k, v, mask};
  uint32_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  ggml_tensor* out = ggml_custom_4d(ctx, GGML_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3], args, mask ? 4 : 3, flashOp, GGML_N_TASKS_MAX,
                                    reinterpret_cast<void*>(static_cast<uintptr_t>(bits)));
  return ggml_set_name(out, "FLASH_ATTN_CPU");  // what Graph.ops() reports
}

#else
const char* flashAttnCpuKernel() { return nullptr; }
ggml_tensor* flashAttnCpu(ggml_context*, ggml_tensor*, ggml_tensor*, ggml_tensor*, ggml_tensor*, float) { return nullptr; }
#endif

}  // namespace jepa
