// The f32 micro-kernel shared by the panel matmul and the CPU attention (AVX-512 translation units
// only): up to 8 rows of activations against up to 3 groups of 16 outputs, 24 zmm accumulators.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

namespace jepa::cpu {

constexpr int kTileRows = 8;    // activation rows per tile
constexpr int kTileGroups = 3;  // groups of 16 outputs per tile

// c[t][16·g + i] (+)= Σ_j a[j·lda + t] · b[j·step + g·group + i] for t < R, g < G, i < 16, j < n in
// order: one fma chain per output. `first` starts from zero instead of c.
template <int R, int G>
__attribute__((target("avx512f"))) void fmaTile(const float* __restrict a, int64_t lda, const float* __restrict b, int64_t group, int64_t step,
                                                 int64_t n, float* __restrict c, int64_t ldc, bool first) {
  __m512 acc[R][G];
  for (int t = 0; t < R; ++t)
    for (int g = 0; g < G; ++g) acc[t][g] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + t * ldc + g * 16);
  for (int64_t j = 0; j < n; ++j, a += lda, b += step) {
    __m512 w[G];
    for (int g = 0; g < G; ++g) w[g] = _mm512_loadu_ps(b + g * group);
#pragma GCC unroll 8
    for (int t = 0; t < R; ++t) {
      const __m512 x = _mm512_set1_ps(a[t]);
      for (int g = 0; g < G; ++g) acc[t][g] = _mm512_fmadd_ps(x, w[g], acc[t][g]);
    }
  }
  for (int t = 0; t < R; ++t)
    for (int g = 0; g < G; ++g) _mm512_storeu_ps(c + t * ldc + g * 16, acc[t][g]);
}

using FmaTileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int64_t, float*, int64_t, bool);

template <int G, int... R>
constexpr std::array<FmaTileFn, kTileRows + 1> fmaTilesOf(std::integer_sequence<int, R...>) {
  return {nullptr, fmaTile<R + 1, G>...};
}

// kFmaTiles[g][r]: r rows against g groups.
inline const std::array<FmaTileFn, kTileRows + 1> kFmaTiles[kTileGroups + 1] = {
    {}, fmaTilesOf<1>(std::make_integer_sequence<int, kTileRows>{}), fmaTilesOf<2>(std::make_integer_sequence<int, kTileRows>{}),
    fmaTilesOf<3>(std::make_integer_sequence<int, kTileRows>{})};

// c (ldc) (+)= a (rows ≤ kTileRows) × `groups` groups of 16 outputs, kTileGroups at a time.
inline void fmaRow(const float* a, int64_t lda, int rows, const float* b, int64_t groups, int64_t group, int64_t step, int64_t n, float* c,
                   int64_t ldc, bool first) {
  for (int64_t g = 0; g < groups; g += kTileGroups) {
    const int w = static_cast<int>(groups - g < kTileGroups ? groups - g : kTileGroups);
    kFmaTiles[w][rows](a, lda, b + g * group, group, step, n, c + g * 16, ldc, first);
  }
}

}  // namespace jepa::cpu
