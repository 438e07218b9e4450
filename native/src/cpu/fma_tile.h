// The f32 micro-kernel shared by the panel matmul and the CPU attention (AVX-512 translation units
// only): up to 8 rows of activations against up to 3 groups of 16 outputs, 24 zmm accumulators,
// weights in f32 or in f16 (widened exactly as they load); and the transposes that put operands in
// its broadcast layout.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace jepa::cpu {

constexpr int kTileRows = 8;    // activation rows per tile
constexpr int kTileGroups = 3;  // groups of 16 outputs per tile

// c[t][16·g + i] (+)= Σ_j a[j·lda + t] · b[j·step + g·group + i] for t < R, g < G, i < 16, j < n in
// order: one fma chain per output, from zero; `first` stores it, otherwise it is added to c (a long
// k in blocks then sums block by block, which keeps the rounding error of one block). W: float, or
// uint16_t for f16 weights.
template <int R, int G, typename W = float>
__attribute__((target("avx512f"))) void fmaTile(const float* __restrict a, int64_t lda, const W* __restrict b, int64_t group, int64_t step,
                                                 int64_t n, float* __restrict c, int64_t ldc, bool first) {
  __m512 acc[R][G];
  for (int t = 0; t < R; ++t)
    for (int g = 0; g < G; ++g) acc[t][g] = _mm512_setzero_ps();
  for (int64_t j = 0; j < n; ++j, a += lda, b += step) {
    __m512 w[G];
    // the weights stream from L2: ask for them 16 steps ahead (+6 % at ViT-B shapes, side by side)
    for (int g = 0; g < G; ++g) _mm_prefetch(reinterpret_cast<const char*>(b + g * group + 16 * step), _MM_HINT_T0);
    for (int g = 0; g < G; ++g) {
      if constexpr (std::is_same_v<W, float>)
        w[g] = _mm512_loadu_ps(b + g * group);
      else
        w[g] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * group)));
    }
#pragma GCC unroll 8
    for (int t = 0; t < R; ++t) {
      const __m512 x = _mm512_set1_ps(a[t]);
      for (int g = 0; g < G; ++g) acc[t][g] = _mm512_fmadd_ps(x, w[g], acc[t][g]);
    }
  }
  for (int t = 0; t < R; ++t)
    for (int g = 0; g < G; ++g) {
      float* out = c + t * ldc + g * 16;
      _mm512_storeu_ps(out, first ? acc[t][g] : _mm512_add_ps(_mm512_loadu_ps(out), acc[t][g]));
    }
}

template <typename W>
using FmaTileFnOf = void (*)(const float*, int64_t, const W*, int64_t, int64_t, int64_t, float*, int64_t, bool);
using FmaTileFn = FmaTileFnOf<float>;

template <typename W, int G, int... R>
constexpr std::array<FmaTileFnOf<W>, kTileRows + 1> fmaTilesOf(std::integer_sequence<int, R...>) {
  return {nullptr, fmaTile<R + 1, G, W>...};
}

// kFmaTilesOf<W>[g][r]: r rows against g groups of W weights; kFmaTiles: f32 weights.
template <typename W>
inline const std::array<FmaTileFnOf<W>, kTileRows + 1> kFmaTilesOf[kTileGroups + 1] = {
    {}, fmaTilesOf<W, 1>(std::make_integer_sequence<int, kTileRows>{}), fmaTilesOf<W, 2>(std::make_integer_sequence<int, kTileRows>{}),
    fmaTilesOf<W, 3>(std::make_integer_sequence<int, kTileRows>{})};
inline const auto& kFmaTiles = kFmaTilesOf<float>;

// kFmaTiles4[r]: r ≤ 6 rows against 4 groups (64 outputs), also 24 accumulators.
constexpr int kWideTileRows = 6;
template <int... R>
constexpr std::array<FmaTileFn, kWideTileRows + 1> fmaWideTilesOf(std::integer_sequence<int, R...>) {
  return {nullptr, fmaTile<R + 1, 4>...};
}
inline const std::array<FmaTileFn, kWideTileRows + 1> kFmaTiles4 = fmaWideTilesOf(std::make_integer_sequence<int, kWideTileRows>{});

// c (ldc) (+)= a (rows ≤ kTileRows) × `groups` groups of 16 outputs, kTileGroups at a time; a last
// 4 goes as 2 + 2, since one group alone leaves the fma units waiting on its 8 chains.
inline void fmaRow(const float* a, int64_t lda, int rows, const float* b, int64_t groups, int64_t group, int64_t step, int64_t n, float* c,
                   int64_t ldc, bool first) {
  for (int64_t g = 0; g < groups;) {
    const int64_t left = groups - g;
    const int w = static_cast<int>(left == 4 ? 2 : left < kTileGroups ? left : kTileGroups);
    kFmaTiles[w][rows](a, lda, b + g * group, group, step, n, c + g * 16, ldc, first);
    g += w;
  }
}

// dst[c·dstStride + r] = src[r][c] for 8 rows (a null row reads as zeros) and 16 columns.
__attribute__((target("avx512f"))) inline void transpose8x16(const float* const rows[8], float* dst, int64_t dstStride) {
  __m512 r[8];
  for (int i = 0; i < 8; ++i) r[i] = rows[i] ? _mm512_loadu_ps(rows[i]) : _mm512_setzero_ps();
  // within each 128-bit lane: columns 0..3 of that lane for rows 0-3 (u[0..3]) and rows 4-7 (u[4..7])
  __m512 u[8];
  for (int h = 0; h < 2; ++h) {
    const __m512 lo01 = _mm512_unpacklo_ps(r[4 * h], r[4 * h + 1]), hi01 = _mm512_unpackhi_ps(r[4 * h], r[4 * h + 1]);
    const __m512 lo23 = _mm512_unpacklo_ps(r[4 * h + 2], r[4 * h + 3]), hi23 = _mm512_unpackhi_ps(r[4 * h + 2], r[4 * h + 3]);
    u[4 * h + 0] = _mm512_shuffle_ps(lo01, lo23, 0x44);
    u[4 * h + 1] = _mm512_shuffle_ps(lo01, lo23, 0xEE);
    u[4 * h + 2] = _mm512_shuffle_ps(hi01, hi23, 0x44);
    u[4 * h + 3] = _mm512_shuffle_ps(hi01, hi23, 0xEE);
  }
  alignas(64) float lanes[8][16];
  for (int i = 0; i < 8; ++i) _mm512_store_ps(lanes[i], u[i]);
  for (int lane = 0; lane < 4; ++lane)
    for (int c = 0; c < 4; ++c) {
      float* out = dst + (4 * lane + c) * dstStride;
      std::memcpy(out, &lanes[c][4 * lane], 4 * sizeof(float));
      std::memcpy(out + 4, &lanes[4 + c][4 * lane], 4 * sizeof(float));
    }
}

// dst[c·dstStride + r] = rows[r][c] for n rows (≤ 8; the rest zeros) and d columns.
inline void transposeRows(const float* const rows[8], int64_t d, float* dst, int64_t dstStride) {
  int64_t c = 0;
  for (; c + 16 <= d; c += 16) {
    const float* at[8];
    for (int i = 0; i < 8; ++i) at[i] = rows[i] ? rows[i] + c : nullptr;
    transpose8x16(at, dst + c * dstStride, dstStride);
  }
  for (; c < d; ++c)
    for (int i = 0; i < 8; ++i) dst[c * dstStride + i] = rows[i] ? rows[i][c] : 0.0f;
}

}  // namespace jepa::cpu
