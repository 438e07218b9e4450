// The f32 panel kernel on AVX-512: tiles of up to 8 tokens against 3 panels (fma_tile.h), the
// activations repacked per tile so a step's 8 values are adjacent, k in blocks that keep a tile's
// weights and activations in L2.
#include "panel_f32.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fma_tile.h"
#define JEPA_F32_KERNEL 1
#endif

namespace jepa::panel::f32 {
namespace {

constexpr int kTokens = 8;       // tokens per tile (cpu::kTileRows)
constexpr int64_t kMaxStep = 1024;  // k per block at most: a tile's block of activations is 32 KiB
constexpr int64_t kChunk = 256;     // tokens whose block of activations is repacked at once (1 MiB)

}  // namespace

#if JEPA_F32_KERNEL
// Each panel is two 8-row transposes into its 16-wide steps; panels split over plain threads (a
// ViT-H file holds 2.4 GB of them). Not OpenMP: a team started from the loading thread stays
// alive beside the compute thread's and slowed later graphs by a quarter (LeWM rollout, q8_0).
namespace {
template <typename Fn>
void onThreads(int64_t panels, int64_t k, const Fn& packPanels) {
  const int64_t workers = std::min<int64_t>({static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency())), 8, panels * k / (1 << 16) + 1});
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(packPanels, panels * w / workers, panels * (w + 1) / workers);
  packPanels(0, panels / workers);
  for (std::thread& t : threads) t.join();
}
}  // namespace

void pack(const float* src, int64_t rows, int64_t k, float* dst) {
  onThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t half = 0; half < 2; ++half) {
        const float* at[8];
        for (int64_t r = 0; r < 8; ++r) at[r] = src + (p * kRows + half * 8 + r) * k;
        cpu::transposeRows(at, k, dst + p * kRows * k + half * 8, kRows);
      }
  });
}

// The same layout in f16 bits: 16 rows × 64 steps at a time, so the writes stay within 2 KiB.
void packHalf(const uint16_t* src, int64_t rows, int64_t k, uint16_t* dst) {
  onThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t j0 = 0; j0 < k; j0 += 64)
        for (int64_t r = 0; r < kRows; ++r)
          for (int64_t j = j0; j < std::min(k, j0 + 64); ++j) dst[(p * k + j) * kRows + r] = src[(p * kRows + r) * k + j];
  });
}

namespace {

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

bool supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

namespace {
template <typename W>
void opOf(ggml_tensor* dst, int ith, int nth, void* userdata) {
  const ggml_tensor* packed = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const Share share = shareOf(ggml_nrows(x), rows / kRows, ith, nth);
  if (share.empty()) return;
  run(static_cast<const float*>(x->data), k, share.tok0, share.tok1, static_cast<const W*>(packed->data), share.pan0, share.pan1,
      static_cast<float*>(dst->data), rows);
  finish(*static_cast<const Epilogue*>(userdata), dst, share.tok0, share.tok1, share.pan0 * kRows, share.pan1 * kRows);
}
}  // namespace

void op(ggml_tensor* dst, int ith, int nth, void* userdata) { opOf<float>(dst, ith, nth, userdata); }
void opHalf(ggml_tensor* dst, int ith, int nth, void* userdata) { opOf<uint16_t>(dst, ith, nth, userdata); }

#else
bool supported() { return false; }
void pack(const float* src, int64_t rows, int64_t k, float* dst) {
  for (int64_t p = 0; p < rows / kRows; ++p)
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < k; ++j) dst[(p * k + j) * kRows + r] = src[(p * kRows + r) * k + j];
}
void packHalf(const uint16_t* src, int64_t rows, int64_t k, uint16_t* dst) {
  for (int64_t p = 0; p < rows / kRows; ++p)
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < k; ++j) dst[(p * k + j) * kRows + r] = src[(p * kRows + r) * k + j];
}
void op(ggml_tensor*, int, int, void*) {}
void opHalf(ggml_tensor*, int, int, void*) {}
#endif

}  // namespace jepa::panel::f32
