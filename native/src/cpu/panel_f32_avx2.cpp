// The f32 panel kernel on AVX2 + FMA: tiles of up to 6 tokens against one panel (fma_tile_avx2.h),
// the activations repacked per tile so a step's values are adjacent, k in blocks that keep a panel's
// block of weights in L1 across the tiles.
#include <algorithm>
#include <vector>

#include "pack_threads.h"
#include "panel_f32.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fma_tile_avx2.h"
#define JEPA_F32_AVX2 1
#endif

namespace jepa::panel::f32 {
#if JEPA_F32_AVX2
namespace {

using cpu::avx2::kLda;
using cpu::avx2::kTileRows;

constexpr int64_t kMaxStep = 512;  // k per block at most: a panel's block of f32 weights is 32 KiB
constexpr int64_t kChunk = 240;    // tokens whose block of activations is repacked at once

void packPanels(const float* src, int64_t rows, int64_t k, float* dst) {
  onPackThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t half = 0; half < 2; ++half) {
        const float* at[8];
        for (int64_t r = 0; r < 8; ++r) at[r] = src + (p * kRows + half * 8 + r) * k;
        cpu::avx2::transposeRows(at, k, dst + p * kRows * k + half * 8, kRows);
      }
  });
}

template <typename W>
void run(const float* x, int64_t k, int64_t m0, int64_t m1, const W* packed, int64_t p0, int64_t p1, float* out, int64_t rows) {
  thread_local std::vector<float> scratch;
  const int64_t panelStride = k * kRows;
  const int64_t blocks = (k + kMaxStep - 1) / kMaxStep;
  const int64_t kStep = (k + blocks - 1) / blocks;
  for (int64_t c0 = m0; c0 < m1; c0 += kChunk) {
    const int64_t c1 = std::min(m1, c0 + kChunk);
    const int64_t tiles = (c1 - c0 + kTileRows - 1) / kTileRows;
    const auto tileStart = [&](int64_t i) { return c0 + (c1 - c0) * i / tiles; };  // balanced tiles
    scratch.resize(static_cast<size_t>(tiles * kStep * kLda));
    for (int64_t j0 = 0; j0 < k; j0 += kStep) {
      const int64_t n = std::min(k - j0, kStep);
      for (int64_t i = 0; i < tiles; ++i) {
        const float* at[8] = {};
        for (int64_t t = 0; t < kTileRows; ++t) at[t] = tileStart(i) + t < tileStart(i + 1) ? x + (tileStart(i) + t) * k + j0 : nullptr;
        cpu::avx2::transposeRows(at, n, scratch.data() + i * kStep * kLda, kLda);
      }
      for (int64_t p = p0; p < p1; ++p) {
        const W* b = packed + p * panelStride + j0 * kRows;
        for (int64_t i = 0; i < tiles; ++i) {
          const int64_t t0 = tileStart(i);
          const int r = static_cast<int>(tileStart(i + 1) - t0);
          cpu::avx2::kFmaTiles<W>[r](scratch.data() + i * kStep * kLda, kLda, b, kRows, n, out + t0 * rows + p * kRows, rows, j0 == 0);
        }
      }
    }
  }
}

}  // namespace

const Level kAvx2{"avx2", packPanels, run<float>, run<uint16_t>};
#else
const Level kAvx2{"avx2", nullptr, nullptr, nullptr};
#endif

}  // namespace jepa::panel::f32
