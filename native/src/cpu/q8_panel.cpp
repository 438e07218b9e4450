#include "q8_panel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define JEPA_Q8_PANEL_X86 1
#include <immintrin.h>
#endif

namespace jepa {
namespace {

constexpr int64_t kBlock = 32;  // values per q8_0 block
// One block of one panel: 8 groups of 4 values for 16 rows (rows interleaved by 4 bytes, the
// operand order of vpdpbusd), then the 16 rows' scales (f32) and 128·Σq per row (int32), which
// undoes the +128 that makes the activations unsigned.
constexpr int64_t kGroupBytes = kQ8PanelRows * 4;
constexpr int64_t kBlockBytes = (kBlock / 4) * kGroupBytes + kQ8PanelRows * 4 + kQ8PanelRows * 4;

struct BlockQ8 {
  ggml_fp16_t d;
  int8_t qs[kBlock];
};
static_assert(sizeof(BlockQ8) == 34, "block_q8_0 is a 2-byte scale and 32 int8 values");

// Activations of one token: k bytes (q + 128), then k/32 scales.
int64_t tokenBytes(int64_t k) { return k + (k / kBlock) * static_cast<int64_t>(sizeof(float)); }

#if defined(JEPA_Q8_PANEL_X86)
#define JEPA_Q8_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

// One token's activations as ggml's q8_0 quantizes them (scale = max|x| / 127 per block of 32, values
// rounded to nearest even), stored +128 as unsigned bytes for vpdpbusd.
JEPA_Q8_TARGET void quantizeToken(const float* x, int64_t k, uint8_t* q, float* d) {
  const __m512i offset = _mm512_set1_epi32(128);
  for (int64_t b = 0; b < k / kBlock; ++b) {
    const __m512 lo = _mm512_loadu_ps(x + b * kBlock), hi = _mm512_loadu_ps(x + b * kBlock + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    const float scale = amax / 127.0f;
    const __m512 inv = _mm512_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    d[b] = scale;
    const __m512i qlo = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(lo, inv)), offset);
    const __m512i qhi = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(hi, inv)), offset);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kBlock), _mm512_cvtepi32_epi8(qlo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kBlock + 16), _mm512_cvtepi32_epi8(qhi));
  }
}

// T tokens against one panel of 16 rows. Every output is computed by the same instruction sequence
// whatever T is, so results do not depend on how tokens are tiled or split between threads.
template <int T>
JEPA_Q8_TARGET void panelTile(const uint8_t* panel, int64_t nb, const uint8_t* const* xq,
                                                                        const float* const* xd, float* const* out) {
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += kBlockBytes) {
    __m512i dot[T];
    for (int t = 0; t < T; ++t) dot[t] = _mm512_setzero_si512();
    for (int g = 0; g < kBlock / 4; ++g) {
      const __m512i w = _mm512_loadu_si512(panel + g * kGroupBytes);
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, xq[t] + b * kBlock + g * 4, sizeof four);
        dot[t] = _mm512_dpbusd_epi32(dot[t], _mm512_set1_epi32(four), w);
      }
    }
    const __m512 dw = _mm512_loadu_ps(panel + (kBlock / 4) * kGroupBytes);
    const __m512i bias = _mm512_loadu_si512(panel + (kBlock / 4) * kGroupBytes + kQ8PanelRows * 4);
    for (int t = 0; t < T; ++t) {
      const __m512 exact = _mm512_cvtepi32_ps(_mm512_sub_epi32(dot[t], bias));
      acc[t] = _mm512_fmadd_ps(exact, _mm512_mul_ps(dw, _mm512_set1_ps(xd[t][b])), acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(out[t], acc[t]);
}

template <int T>
void runTile(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t t0, float* dst, int64_t rows, int64_t row0,
             int64_t token0) {
  const uint8_t* xq[T];
  const float* xd[T];
  float* out[T];
  for (int t = 0; t < T; ++t) {
    const uint8_t* tok = scratch + (t0 + t) * tokenBytes(k);
    xq[t] = tok;
    xd[t] = reinterpret_cast<const float*>(tok + k);
    out[t] = dst + (token0 + t0 + t) * rows + row0;
  }
  panelTile<T>(panel, nb, xq, xd, out);
}
#endif

// Work split: whole tokens per thread when there are enough of them, else whole panels, so that
// each output is still produced by one thread running the same code.
void q8PanelOp(ggml_tensor* dst, int ith, int nth, void*) {
#if defined(JEPA_Q8_PANEL_X86)
  const ggml_tensor* panelT = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const int64_t tokens = ggml_nrows(x);
  const int64_t nb = k / kBlock;
  const int64_t panels = rows / kQ8PanelRows;
  const auto* packed = static_cast<const uint8_t*>(panelT->data);
  const auto* xs = static_cast<const float*>(x->data);
  auto* out = static_cast<float*>(dst->data);

  const bool byTokens = tokens >= 8 * nth;
  const int64_t tok0 = byTokens ? tokens * ith / nth : 0;
  const int64_t tok1 = byTokens ? tokens * (ith + 1) / nth : tokens;
  const int64_t pan0 = byTokens ? 0 : panels * ith / nth;
  const int64_t pan1 = byTokens ? panels : panels * (ith + 1) / nth;
  if (tok0 >= tok1 || pan0 >= pan1) return;

  thread_local std::vector<uint8_t> scratch;
  scratch.resize(static_cast<size_t>((tok1 - tok0) * tokenBytes(k)));
  for (int64_t m = tok0; m < tok1; ++m) {
    uint8_t* tok = scratch.data() + (m - tok0) * tokenBytes(k);
    quantizeToken(xs + m * k, k, tok, reinterpret_cast<float*>(tok + k));
  }
  const int64_t n = tok1 - tok0;
  for (int64_t p = pan0; p < pan1; ++p) {
    const uint8_t* panel = packed + p * nb * kBlockBytes;
    int64_t t = 0;
    for (; t + 8 <= n; t += 8) runTile<8>(panel, nb, scratch.data(), k, t, out, rows, p * kQ8PanelRows, tok0);
    for (; t < n; ++t) runTile<1>(panel, nb, scratch.data(), k, t, out, rows, p * kQ8PanelRows, tok0);
  }
#else
  (void)dst, (void)ith, (void)nth;
#endif
}

}  // namespace

bool q8PanelAvailable() {
#if defined(JEPA_Q8_PANEL_X86)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

int64_t q8PanelBytes(int64_t rows, int64_t k) { return (rows / kQ8PanelRows) * (k / kBlock) * kBlockBytes; }

void q8PanelPack(const void* q8rows, int64_t rows, int64_t k, void* dst) {
  const auto* src = static_cast<const BlockQ8*>(q8rows);
  const int64_t nb = k / kBlock;
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t p = 0; p < rows / kQ8PanelRows; ++p)
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* blk = out + (p * nb + b) * kBlockBytes;
      auto* scales = reinterpret_cast<float*>(blk + (kBlock / 4) * kGroupBytes);
      auto* bias = reinterpret_cast<int32_t*>(blk + (kBlock / 4) * kGroupBytes + kQ8PanelRows * 4);
      for (int64_t r = 0; r < kQ8PanelRows; ++r) {
        const BlockQ8& q = src[(p * kQ8PanelRows + r) * nb + b];
        int32_t sum = 0;
        for (int64_t j = 0; j < kBlock; ++j) {
          blk[(j / 4) * kGroupBytes + r * 4 + (j % 4)] = static_cast<uint8_t>(q.qs[j]);
          sum += q.qs[j];
        }
        scales[r] = ggml_fp16_to_fp32(q.d);
        bias[r] = 128 * sum;
      }
    }
}

ggml_tensor* q8PanelMulMat(ggml_context* ctx, ggml_tensor* panel, ggml_tensor* x, int64_t rows) {
  ggml_tensor* args[2] = {panel, x};
  return ggml_custom_4d(ctx, GGML_TYPE_F32, rows, x->ne[1], x->ne[2], x->ne[3], args, 2, q8PanelOp, GGML_N_TASKS_MAX, nullptr);
}

}  // namespace jepa
