// The one rounding path from a q8_row dot to its output, shared by every q8_row kernel so that they
// agree bit for bit (not part of the addon's API).
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "panel_rows.h"

namespace jepa::panel::rows {

// A token's scale and zero point from its range (mn ≤ 0 ≤ mx), and 1/scale, shared by every quantizer.
inline TokenQuant tokenQuant(float mn, float mx, float& inv) {
  const float scale = (mx - mn) / 255.0f;
  inv = scale != 0.0f ? 1.0f / scale : 0.0f;
  const auto zp = static_cast<int32_t>(__builtin_nearbyintf(-mn * inv));
  return {scale, zp < 0 ? 0 : zp > 255 ? 255 : zp};
}

// 16 rows of one token: float(dot − zp·Σq) · (scale_x · scale_w).
__attribute__((target("avx512f"))) inline __m512 rowValues(__m512i dot, const TokenQuant& t, __m512i sums, __m512 scales) {
  const __m512i exact = _mm512_sub_epi32(dot, _mm512_mullo_epi32(_mm512_set1_epi32(t.zp), sums));
  return _mm512_mul_ps(_mm512_cvtepi32_ps(exact), _mm512_mul_ps(scales, _mm512_set1_ps(t.scale)));
}

// The same for 8 rows (AVX2): the same operations, so the same bits.
__attribute__((target("avx2"))) inline __m256 rowValues8(__m256i dot, const TokenQuant& t, __m256i sums, __m256 scales) {
  const __m256i exact = _mm256_sub_epi32(dot, _mm256_mullo_epi32(_mm256_set1_epi32(t.zp), sums));
  return _mm256_mul_ps(_mm256_cvtepi32_ps(exact), _mm256_mul_ps(scales, _mm256_set1_ps(t.scale)));
}

}  // namespace jepa::panel::rows
#endif
