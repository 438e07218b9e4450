// The panel kernels on AVX2 with AVX-VNNI (x86 without AVX-512): a panel's 16 rows as two ymm
// halves, 4 tokens per tile: a block's 8 int32 dots stay in registers (AVX2 has 16), the f32 sums
// spill to the stack between blocks.
#include <algorithm>
#include <cstring>

#include "cpu_level.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx2,fma,avxvnni")))

JEPA_TARGET float maxAbs(__m256 a, __m256 b) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_max_ps(_mm256_andnot_ps(sign, a), _mm256_andnot_ps(sign, b));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

JEPA_TARGET void quantize(const float* x, int64_t k, uint8_t* q, bool sums) {
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

// Rows 0-7 (half 0) or 8-15 (half 1) of one group, 4 int8 values each.
template <bool Four>
JEPA_TARGET inline void group(const uint8_t* panel, int g, __m256i& w0, __m256i& w1) {
  if constexpr (Four) {
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q4::kGroupBytes));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    w0 = _mm256_and_si256(raw, nibble);
    w1 = _mm256_and_si256(_mm256_srli_epi16(raw, 4), nibble);
  } else {
    w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q8::kGroupBytes));
    w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q8::kGroupBytes + 32));
  }
}

template <bool Four, int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k, Four);
  const int64_t blockBytes = Four ? q4::kBlockBytes : q8::kBlockBytes;
  const int64_t scalesAt = Four ? q4::kScalesAt : q8::kScalesAt;
  const int64_t biasAt = Four ? q4::kBiasAt : q8::kBiasAt;
  __m256 acc[T][2];
  for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += blockBytes) {
    __m256i dot[T][2];
    for (int t = 0; t < T; ++t) dot[t][0] = dot[t][1] = _mm256_setzero_si256();
    for (int g = 0; g < kBlock / 4; ++g) {
      __m256i w0, w1;
      group<Four>(panel, g, w0, w1);
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, scratch + t * stride + b * kBlock + g * 4, sizeof four);
        const __m256i x = _mm256_set1_epi32(four);
        dot[t][0] = _mm256_dpbusd_avx_epi32(dot[t][0], x, w0);
        dot[t][1] = _mm256_dpbusd_avx_epi32(dot[t][1], x, w1);
      }
    }
    for (int h = 0; h < 2; ++h) {
      const __m256 scale = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + scalesAt) + h * 8);
      const __m256i bias = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + biasAt + h * 32));
      for (int t = 0; t < T; ++t) {
        const float* dx = reinterpret_cast<const float*>(scratch + t * stride + k);
        const __m256 exact = _mm256_cvtepi32_ps(_mm256_sub_epi32(dot[t][h], bias));
        acc[t][h] = _mm256_fmadd_ps(exact, _mm256_mul_ps(scale, _mm256_set1_ps(dx[b])), acc[t][h]);
        if constexpr (Four)
          acc[t][h] = _mm256_fnmadd_ps(_mm256_loadu_ps(reinterpret_cast<const float*>(panel + q4::kMinsAt) + h * 8),
                                       _mm256_set1_ps(dx[nb + b]), acc[t][h]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    _mm256_storeu_ps(out + t * ldo, acc[t][0]);
    _mm256_storeu_ps(out + t * ldo + 8, acc[t][1]);
  }
}

bool supported() { return cpuLevel() >= CpuLevel::Avx2 && cpuHasAvxVnni(); }

// n tokens: tiles of 4, then one tile of the 1-3 left.
template <bool Four>
void tokens(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  constexpr TileFn kTail[4] = {nullptr, tile<Four, 1>, tile<Four, 2>, tile<Four, 3>};
  const int64_t stride = tokenBytes(k, Four);
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) tile<Four, 4>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  if (t < n) kTail[n - t](panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

}  // namespace

const Kernel kAvxVnni{"avx-vnni", supported, quantize, tokens<false>, tokens<true>, nullptr, nullptr};

}  // namespace jepa::panel

#else
namespace jepa::panel {
const Kernel kAvxVnni{"avx-vnni", [] { return false; }, nullptr, nullptr, nullptr, nullptr, nullptr};
}
#endif
