// The f32 panel kernel on AVX-512: tiles of up to 8 tokens against 3 panels (fma_tile.h), the
// activations repacked per tile so a step's 8 values are adjacent, k in blocks that keep a tile's
// weights and activations in L2.
#include "panel_f32.h"

#include <algorithm>
#include <vector>

#include "pack_threads.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fma_tile.h"
#define JEPA_F32_KERNEL 1
#endif

namespace jepa::panel::f32 {
#if JEPA_F32_KERNEL
namespace {

constexpr int kTokens = 8;       // tokens per tile (cpu::kTileRows)
constexpr int64_t kMaxStep = 1024;  // k per block at most: a tile's block of activations is 32 KiB
constexpr int64_t kChunk = 256;     // tokens whose block of activations is repacked at once (1 MiB)

void packPanels(const float* src, int64_t rows, int64_t k, float* dst) {
  onPackThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t half = 0; half < 2; ++half) {
        const float* at[8];
        for (int64_t r = 0; r < 8; ++r) at[r] = src + (p * kRows + half * 8 + r) * k;
        cpu::transposeRows(at, k, dst + p * kRows * k + half * 8, kRows);
      }
  });
}

// Tokens [m0, m1) against panels [p0, p1) of W weights: every output is one fma chain per k block.
template <typename W>
void run(const float* x, int64_t k, int64_t m0, int64_t m1, const W* packed, int64_t p0, int64_t p1, float* out, int64_t rows) {
  thread_local std::vector<float> scratch;
  const int64_t panelStride = k * kRows;
  const int64_t blocks = (k + kMaxStep - 1) / kMaxStep;
  const int64_t kStep = (k + blocks - 1) / blocks;  // even blocks: fewer passes over the outputs
  for (int64_t c0 = m0; c0 < m1; c0 += kChunk) {
    const int64_t c1 = std::min(m1, c0 + kChunk);
    const int64_t tiles = (c1 - c0 + kTokens - 1) / kTokens;
    const auto tileStart = [&](int64_t i) { return c0 + (c1 - c0) * i / tiles; };  // balanced tiles
    scratch.resize(static_cast<size_t>(tiles * kStep * kTokens));
    for (int64_t j0 = 0; j0 < k; j0 += kStep) {
      const int64_t n = std::min(k - j0, kStep);
      for (int64_t i = 0; i < tiles; ++i) {
        const float* rows[kTokens];
        for (int64_t t = 0; t < kTokens; ++t) rows[t] = tileStart(i) + t < tileStart(i + 1) ? x + (tileStart(i) + t) * k + j0 : nullptr;
        cpu::transposeRows(rows, n, scratch.data() + i * kStep * kTokens, kTokens);
      }
      for (int64_t p = p0; p < p1; p += cpu::kTileGroups) {  // a group's block of weights stays in L1 across the tiles
        const int w = static_cast<int>(std::min<int64_t>(cpu::kTileGroups, p1 - p));
        const W* b = packed + p * panelStride + j0 * kRows;
        for (int64_t i = 0; i < tiles; ++i) {
          const int64_t t0 = tileStart(i);
          const int r = static_cast<int>(tileStart(i + 1) - t0);
          cpu::kFmaTilesOf<W>[w][r](scratch.data() + i * kStep * kTokens, kTokens, b, panelStride, kRows, n, out + t0 * rows + p * kRows, rows, j0 == 0);
        }
      }
    }
  }
}

}  // namespace

const Level kAvx512{"avx512", packPanels, run<float>, run<uint16_t>};
#else
const Level kAvx512{"avx512", nullptr, nullptr, nullptr};
#endif

}  // namespace jepa::panel::f32
