// panel_finish.h on AVX-512: the epilogue's steps fused into one pass, so the outputs are read and
// written once instead of once per step.
#include "panel_finish.h"

#include "cpu_level.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <array>
#include <utility>

#include "erf_lanes.h"

namespace jepa::panel {
namespace {

// No fused multiply-adds: each step rounds as the scalar steps do.
template <bool Bias, bool Gelu, bool Scale, bool Add>
__attribute__((target("avx512f"), optimize("fp-contract=off"))) void row(float* o, const float* bias, const float* scale, const float* add,
                                                                        int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m512 v = _mm512_loadu_ps(o + i);
    if constexpr (Bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + i));
    if constexpr (Gelu) v = geluErf16(v);
    if constexpr (Scale) v = _mm512_mul_ps(v, _mm512_loadu_ps(scale + i));
    if constexpr (Add) v = _mm512_add_ps(_mm512_loadu_ps(add + i), v);
    _mm512_storeu_ps(o + i, v);
  }
}

template <int I>
constexpr FinishRow rowOf() {
  return row<(I & 1) != 0, (I & 2) != 0, (I & 4) != 0, (I & 8) != 0>;
}

template <int... I>
constexpr std::array<FinishRow, sizeof...(I)> rows(std::integer_sequence<int, I...>) {
  return {rowOf<I>()...};
}

constexpr auto kRowsByEpilogue = rows(std::make_integer_sequence<int, kEpilogues>{});

}  // namespace

FinishRow finishRowAvx512(const Epilogue& e) { return cpuLevel() == CpuLevel::Avx512 ? kRowsByEpilogue[epilogueIndex(e)] : nullptr; }

}  // namespace jepa::panel
#else
namespace jepa::panel {
FinishRow finishRowAvx512(const Epilogue&) { return nullptr; }
}  // namespace jepa::panel
#endif
