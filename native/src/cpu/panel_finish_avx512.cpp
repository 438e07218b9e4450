// panel_finish.h on AVX-512: the epilogue's steps fused into one pass, so the outputs are read and
// written once instead of once per step.
#include "panel_finish.h"

#include "cpu_level.h"

#if defined(JEPA_HAVE_MVEC) && defined(__x86_64__)
#include <immintrin.h>

#include <array>
#include <utility>

#include "erf_lanes.h"

// glibc's vector-ABI erff, 16 lanes (gelu_erf.cpp's).
extern "C" __m512 _ZGVeN16v_erff(__m512);

namespace jepa::panel {
namespace {

// No fused multiply-adds: each step rounds as the scalar steps do.
template <bool Bias, bool Gelu, bool Scale, bool Add, bool Rational>
__attribute__((target("avx512f"), optimize("fp-contract=off"))) void row(float* o, const float* bias, const float* scale, const float* add,
                                                                        int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), sqrtHalf = _mm512_set1_ps(0.70710678118654752440f);
  for (int64_t i = 0; i < n; i += 16) {
    __m512 v = _mm512_loadu_ps(o + i);
    if constexpr (Bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + i));
    if constexpr (Gelu && Rational) v = erf_lanes::gelu16(v);
    if constexpr (Gelu && !Rational) v = _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, _ZGVeN16v_erff(_mm512_mul_ps(v, sqrtHalf))));
    if constexpr (Scale) v = _mm512_mul_ps(v, _mm512_loadu_ps(scale + i));
    if constexpr (Add) v = _mm512_add_ps(_mm512_loadu_ps(add + i), v);
    _mm512_storeu_ps(o + i, v);
  }
}

template <int I>
constexpr FinishRow rowOf() {
  return row<(I & 1) != 0, (I & 2) != 0, (I & 4) != 0, (I & 8) != 0, (I & 16) != 0>;
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
