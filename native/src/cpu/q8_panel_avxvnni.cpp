// The panel kernel on AVX2 with AVX-VNNI (laptop and desktop x86 without AVX-512): a panel's 16
// rows as two ymm halves, 2 tokens per tile (AVX2 has 16 vector registers).
#include <algorithm>
#include <cstring>

#include "q8_panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::q8panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx2,fma,avxvnni")))

JEPA_TARGET float maxAbs(__m256 a, __m256 b) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_max_ps(_mm256_andnot_ps(sign, a), _mm256_andnot_ps(sign, b));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

JEPA_TARGET void quantize(const float* x, int64_t k, uint8_t* q, float* d) {
  const __m256i offset = _mm256_set1_epi32(128);
  for (int64_t b = 0; b < k / kBlock; ++b) {
    const float* xb = x + b * kBlock;
    const __m256 v0 = _mm256_loadu_ps(xb), v1 = _mm256_loadu_ps(xb + 8), v2 = _mm256_loadu_ps(xb + 16), v3 = _mm256_loadu_ps(xb + 24);
    const float amax = std::max(maxAbs(v0, v1), maxAbs(v2, v3));
    const float scale = amax / 127.0f;
    const __m256 inv = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    d[b] = scale;
    const __m256 v[4] = {v0, v1, v2, v3};
    for (int i = 0; i < 4; ++i) {
      alignas(32) int32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(v[i], inv)), offset));
      for (int j = 0; j < 8; ++j) q[b * kBlock + i * 8 + j] = static_cast<uint8_t>(lanes[j]);
    }
  }
}

template <int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k);
  __m256 acc[T][2];
  for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += kBlockBytes) {
    __m256i dot[T][2];
    for (int t = 0; t < T; ++t) dot[t][0] = dot[t][1] = _mm256_setzero_si256();
    for (int g = 0; g < kBlock / 4; ++g) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes + 32));
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, scratch + t * stride + b * kBlock + g * 4, sizeof four);
        const __m256i x = _mm256_set1_epi32(four);
        dot[t][0] = _mm256_dpbusd_avx_epi32(dot[t][0], x, w0);
        dot[t][1] = _mm256_dpbusd_avx_epi32(dot[t][1], x, w1);
      }
    }
    for (int h = 0; h < 2; ++h) {
      const __m256 dw = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + kScalesAt) + h * 8);
      const __m256i bias = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + kBiasAt + h * 32));
      for (int t = 0; t < T; ++t) {
        float dx;
        std::memcpy(&dx, scratch + t * stride + k + b * 4, sizeof dx);
        const __m256 exact = _mm256_cvtepi32_ps(_mm256_sub_epi32(dot[t][h], bias));
        acc[t][h] = _mm256_fmadd_ps(exact, _mm256_mul_ps(dw, _mm256_set1_ps(dx)), acc[t][h]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    _mm256_storeu_ps(out + t * ldo, acc[t][0]);
    _mm256_storeu_ps(out + t * ldo + 8, acc[t][1]);
  }
}

void tokens(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k);
  int64_t t = 0;
  for (; t + 2 <= n; t += 2) tile<2>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  for (; t < n; ++t) tile<1>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

bool supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avxvnni");
}

}  // namespace

const Kernel kAvxVnni{"avx-vnni", supported, quantize, tokens};

}  // namespace jepa::q8panel

#else
namespace jepa::q8panel {
const Kernel kAvxVnni{"avx-vnni", [] { return false; }, nullptr, nullptr};
}
#endif
