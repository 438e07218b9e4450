// The panel kernels on AVX-512 VNNI: 16 rows per zmm; 4 tokens against 3 panels per tile, or 8
// tokens against one panel for the panels left over.
#include <cstring>

#include "cpu_level.h"
#include "panel_layout.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace jepa::panel {
namespace {

#define JEPA_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

JEPA_TARGET void quantize(const float* x, int64_t k, uint8_t* q, bool sums) {
  const int64_t nb = k / kBlock;
  auto* d = reinterpret_cast<float*>(q + k);
  auto* s = d + nb;
  const __m512i offset = _mm512_set1_epi32(128);
  for (int64_t b = 0; b < nb; ++b) {
    const __m512 lo = _mm512_loadu_ps(x + b * kBlock), hi = _mm512_loadu_ps(x + b * kBlock + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    const float scale = amax / 127.0f;
    const __m512 inv = _mm512_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    const __m512i qlo = _mm512_cvtps_epi32(_mm512_mul_ps(lo, inv));
    const __m512i qhi = _mm512_cvtps_epi32(_mm512_mul_ps(hi, inv));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kBlock), _mm512_cvtepi32_epi8(_mm512_add_epi32(qlo, offset)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kBlock + 16), _mm512_cvtepi32_epi8(_mm512_add_epi32(qhi, offset)));
    d[b] = scale;
    if (sums) s[b] = scale * static_cast<float>(_mm512_reduce_add_epi32(_mm512_add_epi32(qlo, qhi)));
  }
}

// The 64 weights of one group as 16 rows x 4 int8 values, the order vpdpbusd multiplies in.
template <bool Four>
JEPA_TARGET inline __m512i group(const uint8_t* panel, int g) {
  if constexpr (Four) {
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * q4::kGroupBytes));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i lo = _mm256_and_si256(raw, nibble);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), nibble);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  } else {
    return _mm512_loadu_si512(panel + g * q8::kGroupBytes);
  }
}

template <bool Four, int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k, Four);
  const int64_t blockBytes = Four ? q4::kBlockBytes : q8::kBlockBytes;
  const int64_t scalesAt = Four ? q4::kScalesAt : q8::kScalesAt;
  const int64_t biasAt = Four ? q4::kBiasAt : q8::kBiasAt;
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, panel += blockBytes) {
    __m512i dot[T];
    for (int t = 0; t < T; ++t) dot[t] = _mm512_setzero_si512();
    for (int g = 0; g < kBlock / 4; ++g) {
      const __m512i w = group<Four>(panel, g);
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, scratch + t * stride + b * kBlock + g * 4, sizeof four);
        dot[t] = _mm512_dpbusd_epi32(dot[t], _mm512_set1_epi32(four), w);
      }
    }
    const __m512 scale = _mm512_loadu_ps(panel + scalesAt);
    const __m512i bias = _mm512_loadu_si512(panel + biasAt);
    for (int t = 0; t < T; ++t) {
      const float* dx = reinterpret_cast<const float*>(scratch + t * stride + k);
      const __m512 exact = _mm512_cvtepi32_ps(_mm512_sub_epi32(dot[t], bias));
      acc[t] = _mm512_fmadd_ps(exact, _mm512_mul_ps(scale, _mm512_set1_ps(dx[b])), acc[t]);
      if constexpr (Four) acc[t] = _mm512_fnmadd_ps(_mm512_loadu_ps(panel + q4::kMinsAt), _mm512_set1_ps(dx[nb + b]), acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(out + t * ldo, acc[t]);
}

// T tokens against kWidePanels consecutive panels: each broadcast of 4 activation bytes feeds three
// vpdpbusd (48 outputs), so a group costs 3 + T loads for 3·T products instead of 1 + T for T.
template <bool Four, int T>
JEPA_TARGET void wideTile(const uint8_t* panels, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo) {
  constexpr int P = static_cast<int>(kWidePanels);
  const int64_t stride = tokenBytes(k, Four);
  const int64_t blockBytes = Four ? q4::kBlockBytes : q8::kBlockBytes;
  const int64_t scalesAt = Four ? q4::kScalesAt : q8::kScalesAt;
  const int64_t biasAt = Four ? q4::kBiasAt : q8::kBiasAt;
  const int64_t panelBytes = nb * blockBytes;
  __m512 acc[T * P];
#pragma GCC unroll 16
  for (int i = 0; i < T * P; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = panels + b * blockBytes;
    __m512i dot[T * P];
#pragma GCC unroll 16
    for (int i = 0; i < T * P; ++i) dot[i] = _mm512_setzero_si512();
    for (int g = 0; g < kBlock / 4; ++g) {
      __m512i w[P];
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p) w[p] = group<Four>(blk + p * panelBytes, g);
#pragma GCC unroll 8
      for (int t = 0; t < T; ++t) {
        int32_t four;
        std::memcpy(&four, scratch + t * stride + b * kBlock + g * 4, sizeof four);
        const __m512i x = _mm512_set1_epi32(four);
#pragma GCC unroll 4
        for (int p = 0; p < P; ++p) dot[t * P + p] = _mm512_dpbusd_epi32(dot[t * P + p], x, w[p]);
      }
    }
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) {
      const __m512 scale = _mm512_loadu_ps(blk + p * panelBytes + scalesAt);
      const __m512i bias = _mm512_loadu_si512(blk + p * panelBytes + biasAt);
#pragma GCC unroll 8
      for (int t = 0; t < T; ++t) {
        const float* dx = reinterpret_cast<const float*>(scratch + t * stride + k);
        const __m512 exact = _mm512_cvtepi32_ps(_mm512_sub_epi32(dot[t * P + p], bias));
        acc[t * P + p] = _mm512_fmadd_ps(exact, _mm512_mul_ps(scale, _mm512_set1_ps(dx[b])), acc[t * P + p]);
        if constexpr (Four) acc[t * P + p] = _mm512_fnmadd_ps(_mm512_loadu_ps(blk + p * panelBytes + q4::kMinsAt), _mm512_set1_ps(dx[nb + b]), acc[t * P + p]);
      }
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) _mm512_storeu_ps(out + t * ldo + p * 16, acc[t * P + p]);
}

// n tokens against kWidePanels panels: tiles of 4, then one tile of the 1-3 left.
template <bool Four>
void wideTokens(const uint8_t* panels, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  constexpr TileFn kTail[4] = {nullptr, wideTile<Four, 1>, wideTile<Four, 2>, wideTile<Four, 3>};
  const int64_t stride = tokenBytes(k, Four);
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) wideTile<Four, 4>(panels, nb, scratch + t * stride, k, out + t * ldo, ldo);
  if (t < n) kTail[n - t](panels, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

bool supported() {
  __builtin_cpu_init();
  return cpuHasAvx512Vnni();
}

}  // namespace

const Kernel kAvx512Vnni{"avx512-vnni", supported, quantize, runTokens<false, 8, tile<false, 8>, tile<false, 1>>,
                         runTokens<true, 8, tile<true, 8>, tile<true, 1>>, wideTokens<false>, wideTokens<true>};

}  // namespace jepa::panel

#else
namespace jepa::panel {
const Kernel kAvx512Vnni{"avx512-vnni", [] { return false; }, nullptr, nullptr, nullptr, nullptr, nullptr};
}
#endif
