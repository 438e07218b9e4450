// The q8_0 / q4_0 / q4_K panel kernels on plain AVX2 (no VNNI of any kind: AMD Zen 2/3, Intel before
// Ice Lake and Alder Lake), and the AVX2 token quantizer AVX-VNNI's kernel shares. Each block's int32
// dot Σ q·w is exact: for 4-bit weights (0..15) vpmaddubsw's 16-bit pair sums stay under 2·15·127; for
// 8-bit ones the sign trick (|q| against w carrying q's sign; q8_0 activations never reach −128) keeps
// them under 2·127·127. That is the dot the VNNI kernels get as Σ (q + 128)·w − 128·Σw, followed by
// the same f32 steps: the same bits.
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

// Σ q·w of a group's 4 values for the 8 rows of one weight half, from x = q + 128.
struct Step {
  template <bool Four>
  JEPA_TARGET static __m256i dot(__m256i dot, __m256i x, __m256i w) {
    const __m256i q = _mm256_xor_si256(x, _mm256_set1_epi8(static_cast<char>(0x80)));  // signed again
    const __m256i pairs = Four ? _mm256_maddubs_epi16(w, q) : _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(w, q));
    return _mm256_add_epi32(dot, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
  JEPA_TARGET static __m256i exact(__m256i dot, __m256i) { return dot; }
};

#include "panel_tile_ymm.h"

bool supported() { return cpuLevel() >= CpuLevel::Avx2; }

}  // namespace

const Kernel kAvx2{"avx2", supported, quantizeBlocksAvx2, tokens<Step, false>, tokens<Step, true>, nullptr, nullptr};

}  // namespace jepa::panel

#else
namespace jepa::panel {
const Kernel kAvx2{"avx2", [] { return false; }, nullptr, nullptr, nullptr, nullptr, nullptr};
}
#endif
