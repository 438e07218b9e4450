// The panel kernels on AVX2 with AVX-VNNI (x86 without AVX-512): vpdpbusd on the shared 256-bit tile
// (panel_tile_ymm.h), the activations stored + 128 and the rows' 128·Σw taken off each block's dot.
#include <cstring>

#include "cpu_level.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx2,fma,avxvnni")))

struct Step {
  template <bool Four>
  JEPA_TARGET static __m256i dot(__m256i dot, __m256i x, __m256i w) {
    return _mm256_dpbusd_avx_epi32(dot, x, w);
  }
  JEPA_TARGET static __m256i exact(__m256i dot, __m256i bias) { return _mm256_sub_epi32(dot, bias); }
};

#include "panel_tile_ymm.h"

bool supported() { return cpuLevel() >= CpuLevel::Avx2 && cpuHasAvxVnni(); }

}  // namespace

const Kernel kAvxVnni{"avx-vnni", supported, quantizeBlocksAvx2, tokens<Step, false>, tokens<Step, true>, nullptr, nullptr};

}  // namespace jepa::panel

#else
namespace jepa::panel {
const Kernel kAvxVnni{"avx-vnni", [] { return false; }, nullptr, nullptr, nullptr, nullptr, nullptr};
}
#endif
