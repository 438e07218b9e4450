// The f32 panel kernel on AVX-512: tiles of up to 8 tokens against 3 panels (48 outputs, 24
// accumulators), the activations repacked per tile so a step's 8 values are adjacent, k in blocks
// that keep a tile's weights and activations in L2.
#include "panel_f32.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JEPA_F32_KERNEL 1
#endif

namespace jepa::panel::f32 {
namespace {

constexpr int kTokens = 8;     // tokens per tile
constexpr int kWide = 3;       // panels per tile
constexpr int64_t kStep = 256;  // k per block
constexpr int64_t kChunk = 512; // tokens whose block of activations is repacked at once

}  // namespace

void pack(const float* src, int64_t rows, int64_t k, float* dst) {
  for (int64_t p = 0; p < rows / kRows; ++p)
    for (int64_t r = 0; r < kRows; ++r) {
      const float* row = src + (p * kRows + r) * k;
      float* out = dst + p * kRows * k + r;
      for (int64_t j = 0; j < k; ++j) out[j * kRows] = row[j];
    }
}

#if JEPA_F32_KERNEL
namespace {

#define JEPA_TARGET __attribute__((target("avx512f")))

// R tokens (a: kTokens values per step) × W panels (b: W panels of k·16 values) over n steps into
// c + t·ldc, adding to what is there unless `first`.
template <int R, int W>
JEPA_TARGET void tile(const float* __restrict a, const float* __restrict b, int64_t panelStride, int64_t n, float* __restrict c,
                      int64_t ldc, bool first) {
  __m512 acc[R][W];
  for (int t = 0; t < R; ++t)
    for (int w = 0; w < W; ++w) acc[t][w] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + t * ldc + w * kRows);
  for (int64_t j = 0; j < n; ++j, a += kTokens, b += kRows) {
    __m512 wv[W];
    for (int w = 0; w < W; ++w) wv[w] = _mm512_loadu_ps(b + w * panelStride);
#pragma GCC unroll 8
    for (int t = 0; t < R; ++t) {
      const __m512 x = _mm512_set1_ps(a[t]);
      for (int w = 0; w < W; ++w) acc[t][w] = _mm512_fmadd_ps(x, wv[w], acc[t][w]);
    }
  }
  for (int t = 0; t < R; ++t)
    for (int w = 0; w < W; ++w) _mm512_storeu_ps(c + t * ldc + w * kRows, acc[t][w]);
}

using TileFn = void (*)(const float*, const float*, int64_t, int64_t, float*, int64_t, bool);

template <int W, int... R>
constexpr std::array<TileFn, kTokens + 1> tilesOf(std::integer_sequence<int, R...>) {
  return {nullptr, tile<R + 1, W>...};
}

// kTiles[w][r]: r tokens against w panels.
const std::array<TileFn, kTokens + 1> kTiles[kWide + 1] = {
    {}, tilesOf<1>(std::make_integer_sequence<int, kTokens>{}), tilesOf<2>(std::make_integer_sequence<int, kTokens>{}),
    tilesOf<3>(std::make_integer_sequence<int, kTokens>{})};

// Tokens [m0, m1) against panels [p0, p1): every output is one fma chain over k in order.
void run(const float* x, int64_t k, int64_t m0, int64_t m1, const float* packed, int64_t p0, int64_t p1, float* out, int64_t rows) {
  thread_local std::vector<float> scratch;
  const int64_t panelStride = k * kRows;
  for (int64_t c0 = m0; c0 < m1; c0 += kChunk) {
    const int64_t c1 = std::min(m1, c0 + kChunk);
    const int64_t tiles = (c1 - c0 + kTokens - 1) / kTokens;
    const auto tileStart = [&](int64_t i) { return c0 + (c1 - c0) * i / tiles; };  // balanced tiles
    scratch.resize(static_cast<size_t>(tiles * kStep * kTokens));
    for (int64_t j0 = 0; j0 < k; j0 += kStep) {
      const int64_t n = std::min(k - j0, kStep);
      for (int64_t i = 0; i < tiles; ++i) {
        float* a = scratch.data() + i * kStep * kTokens;
        for (int64_t m = tileStart(i); m < tileStart(i + 1); ++m) {
          const float* src = x + m * k + j0;
          const int64_t t = m - tileStart(i);
          for (int64_t j = 0; j < n; ++j) a[j * kTokens + t] = src[j];
        }
      }
      for (int64_t p = p0; p < p1; p += kWide) {
        const int w = static_cast<int>(std::min<int64_t>(kWide, p1 - p));
        const float* b = packed + p * panelStride + j0 * kRows;
        for (int64_t i = 0; i < tiles; ++i) {
          const int64_t t0 = tileStart(i);
          const int r = static_cast<int>(tileStart(i + 1) - t0);
          kTiles[w][r](scratch.data() + i * kStep * kTokens, b, panelStride, n, out + t0 * rows + p * kRows, rows, j0 == 0);
        }
      }
    }
  }
}

}  // namespace

bool supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

// Whole tokens per thread when there are enough of them, else whole panels.
void op(ggml_tensor* dst, int ith, int nth, void*) {
  const ggml_tensor* packed = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const int64_t tokens = ggml_nrows(x);
  const int64_t panels = rows / kRows;
  const bool byTokens = tokens >= kTokens * nth;
  const int64_t m0 = byTokens ? tokens * ith / nth : 0;
  const int64_t m1 = byTokens ? tokens * (ith + 1) / nth : tokens;
  const int64_t p0 = byTokens ? 0 : panels * ith / nth;
  const int64_t p1 = byTokens ? panels : panels * (ith + 1) / nth;
  if (m0 >= m1 || p0 >= p1) return;
  run(static_cast<const float*>(x->data), k, m0, m1, static_cast<const float*>(packed->data), p0, p1, static_cast<float*>(dst->data), rows);
}

#else
bool supported() { return false; }
void op(ggml_tensor*, int, int, void*) {}
#endif

}  // namespace jepa::panel::f32
