// The panel kernel on AVX-512 VNNI: 16 rows per zmm, 8 tokens per tile.
#include <cstring>

#include "q8_panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::q8panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

JEPA_TARGET void quantize(const float* x, int64_t k, uint8_t* q, float* d) {
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

template <int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k);
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += kBlockBytes) {
    __m512i dot[T];
    for (int t = 0; t < T; ++t) dot[t] = _mm512_setzero_si512();
    for (int g = 0; g < kBlock / 4; ++g) {
      const __m512i w = _mm512_loadu_si512(panel + g * kGroupBytes);
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, scratch + t * stride + b * kBlock + g * 4, sizeof four);
        dot[t] = _mm512_dpbusd_epi32(dot[t], _mm512_set1_epi32(four), w);
      }
    }
    const __m512 dw = _mm512_loadu_ps(panel + kScalesAt);
    const __m512i bias = _mm512_loadu_si512(panel + kBiasAt);
    for (int t = 0; t < T; ++t) {
      float dx;
      std::memcpy(&dx, scratch + t * stride + k + b * 4, sizeof dx);
      const __m512 exact = _mm512_cvtepi32_ps(_mm512_sub_epi32(dot[t], bias));
      acc[t] = _mm512_fmadd_ps(exact, _mm512_mul_ps(dw, _mm512_set1_ps(dx)), acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(out + t * ldo, acc[t]);
}

void tokens(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k);
  int64_t t = 0;
  for (; t + 8 <= n; t += 8) tile<8>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  for (; t < n; ++t) tile<1>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

bool supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
}

}  // namespace

const Kernel kAvx512Vnni{"avx512-vnni", supported, quantize, tokens};

}  // namespace jepa::q8panel

#else
namespace jepa::q8panel {
const Kernel kAvx512Vnni{"avx512-vnni", [] { return false; }, nullptr, nullptr};
}
#endif
