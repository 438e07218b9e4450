// erf and GELU(erf) in float32 lanes, the same arithmetic at every level (scalar with std::fma, AVX2,
// AVX-512), so they give the same bits on every CPU: erf(x) = x·P(u)/Q(u), u = x²/16, for |x| < 3.925 and
// ±1 past it (where float32 erf rounds to ±1). The coefficients and their error (|error| ≤ 3.4e-7, about
// what glibc's vector erff gives) come from scripts/derive/erf-rational.py; three times faster than
// libmvec's erff here (gelu_erf.h's GeluErf::Rational).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace jepa::erf_lanes {

constexpr float kLimit = 3.925f;
constexpr float kInvScale = 1.0f / 16.0f;
constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kP[7] = {1.128379226e+00f, 2.954405785e+00f, 1.390047932e+01f, 1.570438957e+01f,
                         2.500465965e+01f, 4.979571342e+00f, -2.262925357e-01f};
constexpr float kQ[6] = {1.000000000e+00f, 7.951610088e+00f, 2.912734222e+01f, 6.323400116e+01f, 8.565525818e+01f, 6.681415558e+01f};

inline float erfScalar(float x) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) >= kLimit) return std::copysign(1.0f, x);
  const float u = (x * x) * kInvScale;
  float p = kP[6];
  for (int i = 5; i >= 0; --i) p = std::fma(p, u, kP[i]);
  float q = kQ[5];
  for (int i = 4; i >= 0; --i) q = std::fma(q, u, kQ[i]);
  return x * (p / q);
}

// 0.5·x·(1 + erf(x/√2)), rounded step by step as gelu16 and gelu8 round it.
inline float geluScalar(float x) {
  const float e = erfScalar(x * kSqrtHalf);
  return (0.5f * x) * (1.0f + e);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) inline __m512 erf16(__m512 x) {
  const __m512 u = _mm512_mul_ps(_mm512_mul_ps(x, x), _mm512_set1_ps(kInvScale));
  __m512 p = _mm512_set1_ps(kP[6]);
  for (int i = 5; i >= 0; --i) p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kP[i]));
  __m512 q = _mm512_set1_ps(kQ[5]);
  for (int i = 4; i >= 0; --i) q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(kQ[i]));
  const __m512 r = _mm512_mul_ps(x, _mm512_div_ps(p, q));
  // |x| ≥ the limit (infinities too): ±1; NaN stays NaN (it compares false)
  const __mmask16 past = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(kLimit), _CMP_GE_OQ);
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  const __m512 one = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(_mm512_set1_ps(1.0f)), sign));
  return _mm512_mask_mov_ps(r, past, one);
}

__attribute__((target("avx512f"))) inline __m512 gelu16(__m512 v) {
  const __m512 e = erf16(_mm512_mul_ps(v, _mm512_set1_ps(kSqrtHalf)));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), v), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

__attribute__((target("avx2,fma"))) inline __m256 erf8(__m256 x) {
  const __m256 u = _mm256_mul_ps(_mm256_mul_ps(x, x), _mm256_set1_ps(kInvScale));
  __m256 p = _mm256_set1_ps(kP[6]);
  for (int i = 5; i >= 0; --i) p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(kP[i]));
  __m256 q = _mm256_set1_ps(kQ[5]);
  for (int i = 4; i >= 0; --i) q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(kQ[i]));
  const __m256 r = _mm256_mul_ps(x, _mm256_div_ps(p, q));
  const __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
  const __m256 past = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), _mm256_set1_ps(kLimit), _CMP_GE_OQ);
  return _mm256_blendv_ps(r, _mm256_or_ps(_mm256_set1_ps(1.0f), sign), past);
}

__attribute__((target("avx2,fma"))) inline __m256 gelu8(__m256 v) {
  const __m256 e = erf8(_mm256_mul_ps(v, _mm256_set1_ps(kSqrtHalf)));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}
#endif

}  // namespace jepa::erf_lanes
