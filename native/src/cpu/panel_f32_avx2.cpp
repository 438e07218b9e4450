// The f32 panel kernel on AVX2 + FMA: tiles of up to 6 tokens against one panel (fma_tile_avx2.h),
// the activations repacked per tile so a step's values are adjacent, k in blocks that keep a panel's
// block of weights in L1 across the tiles.
#include "panel_f32.h"
#include "panel_f32_driver.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "fma_tile_avx2.h"
#define JEPA_F32_AVX2 1
#endif

namespace jepa::panel::f32 {
#if JEPA_F32_AVX2
namespace {

struct Avx2 {
  static constexpr int64_t kTokens = cpu::avx2::kTileRows;  // 6
  static constexpr int64_t kLda = cpu::avx2::kLda;          // 8
  static constexpr int64_t kGroups = 1;
  static constexpr int64_t kMaxStep = 512;  // a panel's block of f32 weights is 32 KiB
  static constexpr int64_t kChunk = 240;
  static void transpose(const float* const rows[8], int64_t d, float* dst, int64_t stride) { cpu::avx2::transposeRows(rows, d, dst, stride); }
  template <typename W>
  static auto tile(int, int tokens) {
    return [fn = cpu::avx2::kFmaTiles<W>[tokens]](const float* a, int64_t lda, const W* b, int64_t, int64_t n, float* c, int64_t ldc, bool first) {
      fn(a, lda, b, kRows, n, c, ldc, first);
    };
  }
};

}  // namespace

const Level kAvx2{"avx2", packPanelsOf<Avx2>, runPanelsOf<Avx2, float>, runPanelsOf<Avx2, uint16_t>};
#else
const Level kAvx2{"avx2", nullptr, nullptr, nullptr};
#endif

}  // namespace jepa::panel::f32
