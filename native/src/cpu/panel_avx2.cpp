// The q8_0 / q4_0 / q4_K panel kernels on plain AVX2 (no VNNI of any kind: AMD Zen 2/3, Intel before
// Ice Lake and Alder Lake), and the AVX2 token quantizer AVX-VNNI's kernel shares. Each block's int32
// dot Σ q·w is exact: for 4-bit weights (0..15) vpmaddubsw's 16-bit pair sums stay under 2·15·127. For
// 8-bit ones each token is kept as |q| and sign masks m (the split layout, panel_layout.h) and each
// product is |q|·(w XOR m), which is q·w − |q| where q < 0; the pair sums stay within 2·127·128 and
// the block's Σ|q| over q < 0 is added back once (as in q8_row's plain-AVX2 kernel, whose vpxor takes
// any vector port where vpsignb takes a multiplier's). That is the dot the VNNI kernels get as
// Σ (q + 128)·w − 128·Σw, followed by the same f32 steps: the same bits.
#include <algorithm>
#include <cstring>

#include "cpu_level.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx2,fma")))

JEPA_TARGET float maxAbs(__m256 a, __m256 b) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_max_ps(_mm256_andnot_ps(sign, a), _mm256_andnot_ps(sign, b));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

}  // namespace

JEPA_TARGET void quantizeBlocksAvx2(const float* x, int64_t k, uint8_t* q, bool sums) {
  const int64_t nb = k / kBlock;
  auto* d = reinterpret_cast<float*>(q + k);
  auto* s = d + nb;
  for (int64_t b = 0; b < nb; ++b) {
    const float* xb = x + b * kBlock;
    const __m256 v[4] = {_mm256_loadu_ps(xb), _mm256_loadu_ps(xb + 8), _mm256_loadu_ps(xb + 16), _mm256_loadu_ps(xb + 24)};
    const float scale = std::max(maxAbs(v[0], v[1]), maxAbs(v[2], v[3])) / 127.0f;
    const __m256 inv = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    int32_t total = 0;
    for (int i = 0; i < 4; ++i) {
      alignas(32) int32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_cvtps_epi32(_mm256_mul_ps(v[i], inv)));
      for (int j = 0; j < 8; ++j) {
        q[b * kBlock + i * 8 + j] = static_cast<uint8_t>(lanes[j] + 128);
        total += lanes[j];
      }
    }
    d[b] = scale;
    if (sums) s[b] = scale * static_cast<float>(total);
  }
}

namespace {

// The split layout from the shared quantizer's bits: those put q + 128 at row + k and the scales
// right after, where the split layout keeps its masks and scales.
JEPA_TARGET void quantizeSplit(const float* x, int64_t k, uint8_t* row, bool sums) {
  if (sums) return quantizeBlocksAvx2(x, k, row, true);
  quantizeBlocksAvx2(x, k, row + k, false);
  const int64_t nb = k / kBlock;
  auto* negative = reinterpret_cast<int32_t*>(row + 2 * k + nb * 4);
  const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80)), zero = _mm256_setzero_si256();
  for (int64_t b = 0; b < nb; ++b) {
    uint8_t* masks = row + k + b * kBlock;
    const __m256i q = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(masks)), bias);
    const __m256i mag = _mm256_abs_epi8(q), m = _mm256_cmpgt_epi8(zero, q);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + b * kBlock), mag);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(masks), m);
    const __m256i sad = _mm256_sad_epu8(_mm256_and_si256(mag, m), zero);
    const __m128i two = _mm_add_epi64(_mm256_castsi256_si128(sad), _mm256_extracti128_si256(sad, 1));
    negative[b] = static_cast<int32_t>(_mm_cvtsi128_si64(two) + _mm_extract_epi64(two, 1));
  }
}

JEPA_TARGET inline __m256i broadcast4(const uint8_t* v) {
  int32_t four;
  std::memcpy(&four, v, sizeof four);
  return _mm256_set1_epi32(four);
}

// T tokens in the split layout against one 8-bit panel (two ymm halves of 8 rows): each block's exact
// dots, then the f32 steps of the shared tile (panel_tile_ymm.h), in its order.
template <int T>
JEPA_TARGET void tile8(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k, false, true);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[T][2];
  for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += q8::kBlockBytes) {
    __m256i dot[T][2];
    for (int t = 0; t < T; ++t) dot[t][0] = dot[t][1] = _mm256_setzero_si256();
    for (int g = 0; g < kBlock / 4; ++g) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q8::kGroupBytes));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q8::kGroupBytes + 32));
      for (int t = 0; t < T; ++t) {
        const uint8_t* at = scratch + t * stride + b * kBlock + g * 4;
        const __m256i mag = broadcast4(at), neg = broadcast4(at + k);
        dot[t][0] = _mm256_add_epi32(dot[t][0], _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_xor_si256(w0, neg)), ones));
        dot[t][1] = _mm256_add_epi32(dot[t][1], _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_xor_si256(w1, neg)), ones));
      }
    }
    for (int h = 0; h < 2; ++h) {
      const __m256 scale = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + q8::kScalesAt) + h * 8);
      for (int t = 0; t < T; ++t) {
        const float* dx = reinterpret_cast<const float*>(scratch + t * stride + 2 * k);
        const auto* negative = reinterpret_cast<const int32_t*>(dx + nb);
        const __m256 exact = _mm256_cvtepi32_ps(_mm256_add_epi32(dot[t][h], _mm256_set1_epi32(negative[b])));
        acc[t][h] = _mm256_fmadd_ps(exact, _mm256_mul_ps(scale, _mm256_set1_ps(dx[b])), acc[t][h]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    _mm256_storeu_ps(out + t * ldo, acc[t][0]);
    _mm256_storeu_ps(out + t * ldo + 8, acc[t][1]);
  }
}

// n tokens: tiles of 3, then one tile of the 1-2 left. (Tiles of 4 keep 8 dots and the operands in more
// than 16 registers, and ran 1.09x the time of these.)
void tokens8(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  constexpr TileFn kTail[3] = {nullptr, tile8<1>, tile8<2>};
  const int64_t stride = tokenBytes(k, false, true);
  int64_t t = 0;
  for (; t + 3 <= n; t += 3) tile8<3>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  if (t < n) kTail[n - t](panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

// Σ q·w of a group's 4 values for the 8 rows of one 4-bit weight half (0..15), from x = q + 128.
struct Step {
  template <bool Four>
  JEPA_TARGET static __m256i dot(__m256i dot, __m256i x, __m256i w) {
    static_assert(Four, "8-bit weights take tile8");
    const __m256i q = _mm256_xor_si256(x, _mm256_set1_epi8(static_cast<char>(0x80)));  // signed again
    return _mm256_add_epi32(dot, _mm256_madd_epi16(_mm256_maddubs_epi16(w, q), _mm256_set1_epi16(1)));
  }
  JEPA_TARGET static __m256i exact(__m256i dot, __m256i) { return dot; }
};

#include "panel_tile_ymm.h"

bool supported() { return cpuLevel() >= CpuLevel::Avx2; }

}  // namespace

const Kernel kAvx2{"avx2", supported, quantizeSplit, tokens8, tokens<Step, true>, nullptr, nullptr, true};

}  // namespace jepa::panel

#else
namespace jepa::panel {
const Kernel kAvx2{"avx2", [] { return false; }, nullptr, nullptr, nullptr, nullptr, nullptr};
}
#endif
