// q8_row on AVX-512 without VNNI (Skylake-SP and Skylake-X): plain AVX2's exact products (|c| against
// q XOR m through vpmaddubsw and vpmaddwd, panel_rows_avx2.cpp, from the same token rows) on 512-bit
// registers, where one register holds a whole group of a panel: 4 tokens against 4 panels per tile.
#include <cstring>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_TARGET __attribute__((target("avx512f,avx512bw")))

namespace jepa::panel::rows {
namespace {

template <int T, int P>
JEPA_TARGET void tile(const uint8_t* panels, int64_t k, const uint8_t* xq, const TokenQuant* meta, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k), bytes = panelBytes(k);
  const __m512i ones = _mm512_set1_epi16(1);
  __m512i acc[T * P];
#pragma GCC unroll 16
  for (int i = 0; i < T * P; ++i) acc[i] = _mm512_setzero_si512();
  for (int64_t g = 0; g < kp / 4; ++g) {
    __m512i w[P];
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) w[p] = _mm512_loadu_si512(panels + p * bytes + g * kGroupBytes);
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
      int32_t mag4, neg4;
      std::memcpy(&mag4, xq + t * 2 * kp + g * 4, sizeof mag4);
      std::memcpy(&neg4, xq + t * 2 * kp + kp + g * 4, sizeof neg4);
      const __m512i mag = _mm512_set1_epi32(mag4), neg = _mm512_set1_epi32(neg4);
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p)
        acc[t * P + p] = _mm512_add_epi32(acc[t * P + p], _mm512_madd_epi16(_mm512_maddubs_epi16(mag, _mm512_xor_si512(w[p], neg)), ones));
    }
  }
  // The sums leave the registers before their conversion, which GCC would otherwise plan for by
  // keeping the accumulators on the stack through the whole loop.
  alignas(64) int32_t dots[T * P][16];
#pragma GCC unroll 16
  for (int i = 0; i < T * P; ++i) _mm512_store_si512(dots[i], acc[i]);
  for (int p = 0; p < P; ++p) {
    const __m512 scales = _mm512_loadu_ps(panels + p * bytes + scalesAt(k));
    const __m512i sums = _mm512_loadu_si512(panels + p * bytes + sumsAt(k));
    for (int t = 0; t < T; ++t) {
      // + Σ_{c<0} |c|: the dot of c; + 128·Σq: the dot of u itself
      const __m512i dot = _mm512_add_epi32(_mm512_load_si512(dots[t * P + p]), _mm512_set1_epi32(meta[t].dotBias));
      _mm512_storeu_ps(out + t * ldo + p * 16, rowValues(_mm512_add_epi32(dot, _mm512_slli_epi32(sums, 7)), meta[t], sums, scales));
    }
  }
}

constexpr int kT = 4, kP = 4;

template <int P>
constexpr TileFn tileOf(int t) {
  return t == 1 ? tile<1, P> : t == 2 ? tile<2, P> : t == 3 ? tile<3, P> : tile<4, P>;
}
constexpr TileFn tileFor(int t, int p) { return p == 1 ? tileOf<1>(t) : p == 2 ? tileOf<2>(t) : p == 3 ? tileOf<3>(t) : tileOf<4>(t); }

void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  walkTiles(tileFor, kT, kP, 2 * paddedK(k), panels, npanels, k, xq, meta, n, out, ldo);
}

bool supported() { return cpuLevel() >= CpuLevel::Avx512; }

}  // namespace

const Kernel kAvx512{"avx512", supported, 2, quantizeMagnitudesAvx2, tokens};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
const Kernel kAvx512{"avx512", [] { return false; }, 2, nullptr, nullptr};
}
#endif
