// The f32 panel kernel on AVX-512: tiles of up to 8 tokens against 3 panels (fma_tile.h), the
// activations repacked per tile so a step's 8 values are adjacent, k in blocks that keep a tile's
// weights and activations in L2.
#include "panel_f32.h"

#include "panel_f32_driver.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fma_tile.h"
#define JEPA_F32_KERNEL 1
#endif

namespace jepa::panel::f32 {
#if JEPA_F32_KERNEL
namespace {

struct Avx512 {
  static constexpr int64_t kTokens = cpu::kTileRows;  // 8
  static constexpr int64_t kLda = cpu::kTileRows;
  static constexpr int64_t kGroups = cpu::kTileGroups;  // 3 panels: 24 zmm accumulators
  static constexpr int64_t kMaxStep = 1024;             // a tile's block of activations is 32 KiB
  static constexpr int64_t kChunk = 256;                // tokens repacked at once (1 MiB)
  static void transpose(const float* const rows[8], int64_t d, float* dst, int64_t stride) { cpu::transposeRows(rows, d, dst, stride); }
  // fma_tile.h's tile reads `groups` panels, kRows apart per step
  template <typename W>
  static auto tile(int groups, int tokens) {
    return [fn = cpu::kFmaTilesOf<W>[groups][tokens]](const float* a, int64_t lda, const W* b, int64_t panelStride, int64_t n, float* c, int64_t ldc,
                                                     bool first) { fn(a, lda, b, panelStride, kRows, n, c, ldc, first); };
  }
};

}  // namespace

const Level kAvx512{"avx512", packPanelsOf<Avx512>, runPanelsOf<Avx512, float>, runPanelsOf<Avx512, uint16_t>};
#else
const Level kAvx512{"avx512", nullptr, nullptr, nullptr};
#endif

}  // namespace jepa::panel::f32
