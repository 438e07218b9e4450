// The f32 micro-kernel of the AVX2 + FMA level (its translation units only), the counterpart of
// fma_tile.h: up to 6 rows of activations against 16 outputs as two ymm halves, 12 accumulators of
// the 16 registers, weights in f32 or f16 (widened exactly by F16C as they load); and the 8 x 8
// transposes that put operands in its broadcast layout.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#define JEPA_AVX2_TARGET __attribute__((target("avx2,fma,f16c")))

namespace jepa::cpu::avx2 {

constexpr int kTileRows = 6;  // activation rows per tile
constexpr int kLda = 8;       // the activation layout's step: 8 slots, of which a tile uses up to 6

// c[t][i] (+)= Σ_j a[j·lda + t] · b[j·step + i] for t < R, i < 16, j < n in order: one fma chain per
// output from zero, as fma_tile.h's; `first` stores it, otherwise it is added to c.
template <int R, typename W = float>
JEPA_AVX2_TARGET void fmaTile(const float* __restrict a, int64_t lda, const W* __restrict b, int64_t step, int64_t n, float* __restrict c,
                              int64_t ldc, bool first) {
  // every loop over t unrolled, or GCC keeps a copy of the accumulators on the stack
  __m256 lo[R], hi[R];  // outputs 0-7 and 8-15
#pragma GCC unroll 6
  for (int t = 0; t < R; ++t) lo[t] = hi[t] = _mm256_setzero_ps();
  for (int64_t j = 0; j < n; ++j, a += lda, b += step) {
    __m256 w0, w1;
    if constexpr (std::is_same_v<W, float>) {
      w0 = _mm256_loadu_ps(b);
      w1 = _mm256_loadu_ps(b + 8);
    } else {
      w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
      w1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 8)));
    }
#pragma GCC unroll 6
    for (int t = 0; t < R; ++t) {
      const __m256 x = _mm256_broadcast_ss(a + t);
      lo[t] = _mm256_fmadd_ps(x, w0, lo[t]);
      hi[t] = _mm256_fmadd_ps(x, w1, hi[t]);
    }
  }
#pragma GCC unroll 6
  for (int t = 0; t < R; ++t) {
    float* out = c + t * ldc;
    _mm256_storeu_ps(out, first ? lo[t] : _mm256_add_ps(_mm256_loadu_ps(out), lo[t]));
    _mm256_storeu_ps(out + 8, first ? hi[t] : _mm256_add_ps(_mm256_loadu_ps(out + 8), hi[t]));
  }
}

template <typename W>
using FmaTileFn = void (*)(const float*, int64_t, const W*, int64_t, int64_t, float*, int64_t, bool);

template <typename W, int... R>
constexpr std::array<FmaTileFn<W>, kTileRows + 1> fmaTilesOf(std::integer_sequence<int, R...>) {
  return {nullptr, fmaTile<R + 1, W>...};
}

// kFmaTiles<W>[r]: r rows against 16 outputs of W weights.
template <typename W>
inline const std::array<FmaTileFn<W>, kTileRows + 1> kFmaTiles = fmaTilesOf<W>(std::make_integer_sequence<int, kTileRows>{});

// dst[c·dstStride + r] = rows[r][c] for 8 rows (a null row reads as zeros) and 8 columns.
JEPA_AVX2_TARGET inline void transpose8x8(const float* const rows[8], float* dst, int64_t dstStride) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = rows[i] ? _mm256_loadu_ps(rows[i]) : _mm256_setzero_ps();
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  // column c of rows 0-3 sits in lane half c / 4 of s[c % 4], rows 4-7 in s[4 + c % 4]
  const __m256 lo[4] = {s0, s1, s2, s3}, hi[4] = {s4, s5, s6, s7};
  for (int c = 0; c < 4; ++c) {
    _mm256_storeu_ps(dst + c * dstStride, _mm256_permute2f128_ps(lo[c], hi[c], 0x20));
    _mm256_storeu_ps(dst + (c + 4) * dstStride, _mm256_permute2f128_ps(lo[c], hi[c], 0x31));
  }
}

// dst[c·dstStride + r] = rows[r][c] for 8 rows (null rows: zeros) and d columns; dstStride ≥ 8.
JEPA_AVX2_TARGET inline void transposeRows(const float* const rows[8], int64_t d, float* dst, int64_t dstStride) {
  int64_t c = 0;
  for (; c + 8 <= d; c += 8) {
    const float* at[8];
    for (int i = 0; i < 8; ++i) at[i] = rows[i] ? rows[i] + c : nullptr;
    transpose8x8(at, dst + c * dstStride, dstStride);
  }
  for (; c < d; ++c)
    for (int i = 0; i < 8; ++i) dst[c * dstStride + i] = rows[i] ? rows[i][c] : 0.0f;
}

}  // namespace jepa::cpu::avx2
