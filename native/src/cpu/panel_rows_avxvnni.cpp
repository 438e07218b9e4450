// q8_row on AVX2 with AVX-VNNI (x86 laptops without AVX-512): a panel's 16 rows as two ymm halves,
// 6 tokens per tile (12 accumulators, 2 weight halves and the broadcast fill AVX2's 16 registers);
// and the token quantizer in AVX2, giving the AVX-512 one's bits.
#include <cstring>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_TARGET __attribute__((target("avx2,fma,avxvnni")))

namespace jepa::panel::rows {
namespace {

JEPA_TARGET float reduce(__m256 v, bool max) {
  __m128 h = max ? _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)) : _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  h = max ? _mm_max_ps(h, _mm_movehl_ps(h, h)) : _mm_min_ps(h, _mm_movehl_ps(h, h));
  h = max ? _mm_max_ss(h, _mm_movehdup_ps(h)) : _mm_min_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

JEPA_TARGET void quantize(const float* x, int64_t k, uint8_t* u, TokenQuant* meta) {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= k; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    lo = _mm256_min_ps(lo, v);
    hi = _mm256_max_ps(hi, v);
  }
  float mn = reduce(lo, false), mx = reduce(hi, true);
  for (; j < k; ++j) {
    mn = x[j] < mn ? x[j] : mn;
    mx = x[j] > mx ? x[j] : mx;
  }
  float inv;
  *meta = tokenQuant(mn, mx, inv);
  const int32_t zp = meta->zp;
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp), zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(255);
  const int64_t kp = paddedK(k);
  for (j = 0; j < kp; j += 8) {
    alignas(32) float v[8] = {};
    for (int64_t i = 0; i < 8 && j + i < k; ++i) v[i] = x[j + i];
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_load_ps(v), vinv)), vzp);
    q = _mm256_max_epi32(_mm256_min_epi32(q, top), zero);
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), q);
    for (int64_t i = 0; i < 8; ++i) u[j + i] = j + i < k ? static_cast<uint8_t>(lanes[i]) : 0;
  }
}

template <int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t k, const uint8_t* xq, const TokenQuant* meta, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k);
  __m256i acc[2 * T];
#pragma GCC unroll 16
  for (int i = 0; i < 2 * T; ++i) acc[i] = _mm256_setzero_si256();
  for (int64_t g = 0; g < kp / 4; ++g) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes + 32));
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      int32_t four;
      std::memcpy(&four, xq + t * kp + g * 4, sizeof four);
      const __m256i x = _mm256_set1_epi32(four);
      acc[2 * t] = _mm256_dpbusd_avx_epi32(acc[2 * t], x, w0);
      acc[2 * t + 1] = _mm256_dpbusd_avx_epi32(acc[2 * t + 1], x, w1);
    }
  }
  alignas(32) int32_t dots[2 * T][8];  // out of the registers before the conversion (see panel_rows_avx512.cpp)
#pragma GCC unroll 16
  for (int i = 0; i < 2 * T; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(dots[i]), acc[i]);
  for (int h = 0; h < 2; ++h) {
    const __m256 scales = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + scalesAt(k)) + 8 * h);
    const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + sumsAt(k)) + h);
    for (int t = 0; t < T; ++t)
      _mm256_storeu_ps(out + t * ldo + 8 * h, rowValues8(_mm256_load_si256(reinterpret_cast<const __m256i*>(dots[2 * t + h])), meta[t], sums, scales));
  }
}

using TileFn = void (*)(const uint8_t*, int64_t, const uint8_t*, const TokenQuant*, float*, int64_t);
constexpr TileFn kTiles[7] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>};

void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k), bytes = panelBytes(k);
  for (int64_t p = 0; p < npanels; ++p)
    for (int64_t t = 0; t < n; t += 6) kTiles[n - t < 6 ? n - t : 6](panels + p * bytes, k, xq + t * kp, meta + t, out + t * ldo + p * kRows, ldo);
}

bool supported() { return cpuLevel() >= CpuLevel::Avx2 && cpuHasAvxVnni(); }

}  // namespace

const Kernel kAvxVnni{"avx-vnni", supported, quantize, tokens};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
const Kernel kAvxVnni{"avx-vnni", [] { return false; }, nullptr, nullptr};
}
#endif
