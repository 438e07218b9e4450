// The tile of the two 256-bit 8-bit panel kernels (AVX-VNNI's and plain AVX2's): a panel's 16 rows as
// two ymm halves, T tokens per tile, each block's int32 dots in registers and the f32 sums spilled
// between blocks. What differs is how a group's 4 values meet a weight half, given as Step:
//   Step::dot(dot, x, w)   adds to dot the products of x (a token's 4 values + 128, in every lane) and w;
//   Step::exact(dot, bias) the block's exact Σ q·w from that dot (bias: the rows' 128·Σw).
// Include it inside an anonymous namespace, after defining JEPA_TARGET to the kernel's instruction sets:
// each kernel then gets its own copy, compiled for its own target.
#ifndef JEPA_TARGET
#error "define JEPA_TARGET before including panel_tile_ymm.h"
#endif

// Rows 0-7 (half 0) or 8-15 (half 1) of one group, 4 values each.
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

template <class Step, bool Four, int T>
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
        dot[t][0] = Step::template dot<Four>(dot[t][0], x, w0);
        dot[t][1] = Step::template dot<Four>(dot[t][1], x, w1);
      }
    }
    for (int h = 0; h < 2; ++h) {
      const __m256 scale = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + scalesAt) + h * 8);
      const __m256i bias = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + biasAt + h * 32));
      for (int t = 0; t < T; ++t) {
        const float* dx = reinterpret_cast<const float*>(scratch + t * stride + k);
        const __m256 exact = _mm256_cvtepi32_ps(Step::exact(dot[t][h], bias));
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

// n tokens: tiles of 4, then one tile of the 1-3 left.
template <class Step, bool Four>
void tokens(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  constexpr TileFn kTail[4] = {nullptr, tile<Step, Four, 1>, tile<Step, Four, 2>, tile<Step, Four, 3>};
  const int64_t stride = tokenBytes(k, Four);
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) tile<Step, Four, 4>(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  if (t < n) kTail[n - t](panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}
