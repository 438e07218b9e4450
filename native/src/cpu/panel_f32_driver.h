// What the f32 panel kernels of both levels share (their translation units only): packing panels from
// 8-row transposes, and the driver that walks a thread's share in chunks of tokens and blocks of k,
// repacking each tile's activations so a step's values are adjacent, then calls the level's tile on
// groups of panels. Every output is one fma chain per k block, in order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pack_threads.h"
#include "panel_layout.h"

namespace jepa::panel::f32 {

// L: the level. L::kTokens tokens per tile, L::kLda floats per step of a tile's activations, L::kGroups
// panels per tile call, k blocks of at most L::kMaxStep, L::kChunk tokens repacked at once;
// L::transpose(rows[8], n, dst, stride) as cpu::transposeRows; L::tile<W>(groups, tokens) the tile.
template <typename L>
void packPanelsOf(const float* src, int64_t rows, int64_t k, float* dst) {
  onPackThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t half = 0; half < 2; ++half) {
        const float* at[8];
        for (int64_t r = 0; r < 8; ++r) at[r] = src + (p * kRows + half * 8 + r) * k;
        L::transpose(at, k, dst + p * kRows * k + half * 8, kRows);
      }
  });
}

// Tokens [m0, m1) against panels [p0, p1) of W weights.
template <typename L, typename W>
void runPanelsOf(const float* x, int64_t k, int64_t m0, int64_t m1, const W* packed, int64_t p0, int64_t p1, float* out, int64_t rows) {
  thread_local std::vector<float> scratch;
  const int64_t panelStride = k * kRows;
  const int64_t blocks = (k + L::kMaxStep - 1) / L::kMaxStep;
  const int64_t kStep = (k + blocks - 1) / blocks;  // even blocks: fewer passes over the outputs
  for (int64_t c0 = m0; c0 < m1; c0 += L::kChunk) {
    const int64_t c1 = std::min(m1, c0 + L::kChunk);
    const int64_t tiles = (c1 - c0 + L::kTokens - 1) / L::kTokens;
    const auto tileStart = [&](int64_t i) { return c0 + (c1 - c0) * i / tiles; };  // balanced tiles
    scratch.resize(static_cast<size_t>(tiles * kStep * L::kLda));
    for (int64_t j0 = 0; j0 < k; j0 += kStep) {
      const int64_t n = std::min(k - j0, kStep);
      for (int64_t i = 0; i < tiles; ++i) {
        const float* at[8] = {};
        for (int64_t t = 0; t < L::kTokens; ++t) at[t] = tileStart(i) + t < tileStart(i + 1) ? x + (tileStart(i) + t) * k + j0 : nullptr;
        L::transpose(at, n, scratch.data() + i * kStep * L::kLda, L::kLda);
      }
      for (int64_t p = p0; p < p1; p += L::kGroups) {  // a group's block of weights stays in cache across the tiles
        const int w = static_cast<int>(std::min<int64_t>(L::kGroups, p1 - p));
        const W* b = packed + p * panelStride + j0 * kRows;
        for (int64_t i = 0; i < tiles; ++i) {
          const int64_t t0 = tileStart(i);
          const int r = static_cast<int>(tileStart(i + 1) - t0);
          L::template tile<W>(w, r)(scratch.data() + i * kStep * L::kLda, L::kLda, b, panelStride, n, out + t0 * rows + p * kRows, rows, j0 == 0);
        }
      }
    }
  }
}

}  // namespace jepa::panel::f32
