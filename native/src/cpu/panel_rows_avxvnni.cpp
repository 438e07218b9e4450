// q8_row on AVX2 with AVX-VNNI (x86 laptops without AVX-512): a panel's 16 rows as two ymm halves,
// 6 tokens per tile (12 accumulators, 2 weight halves and the broadcast fill AVX2's 16 registers).
#include <cstring>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_TARGET __attribute__((target("avx2,fma,avxvnni")))

namespace jepa::panel::rows {
namespace {

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

constexpr TileFn kTiles[7] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>};
constexpr TileFn tileFor(int t, int) { return kTiles[t]; }

void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  walkTiles(tileFor, 6, 1, paddedK(k), panels, npanels, k, xq, meta, n, out, ldo);
}

bool supported() { return cpuLevel() >= CpuLevel::Avx2 && cpuHasAvxVnni(); }

}  // namespace

const Kernel kAvxVnni{"avx-vnni", supported, 1, quantizeTokenAvx2, tokens};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
const Kernel kAvxVnni{"avx-vnni", [] { return false; }, 1, nullptr, nullptr};
}
#endif
