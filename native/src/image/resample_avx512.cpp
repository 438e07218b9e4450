// AVX-512 (F, BW, VL, VNNI) kernels of the resampler (resample_simd.h): vpdpwssd fusing each
// multiply-add, masked tails. The horizontal pass stays at 256 bits, which issue on three ports of
// this core to the two of 512-bit operations (measured faster); the vertical pass is 512-bit.
#include "cpu/cpu_level.h"
#include "resample.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define JEPA_RESAMPLE_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#include "resample_simd.h"

namespace jepa {
namespace image {
namespace kernels {
namespace {

struct Avx512 {
  JEPA_RESAMPLE_TARGET static void widenRgb(int16_t* dst, __m256i v) { _mm512_storeu_si512(dst, _mm512_cvtepu8_epi16(v)); }
  JEPA_RESAMPLE_TARGET static __m256i dot(__m256i acc, __m256i x, __m256i w) { return _mm256_dpwssd_epi32(acc, x, w); }
  JEPA_RESAMPLE_TARGET static void storeOutputs(uint8_t* dst, __m256i s, int m) {
    s = _mm256_min_epi32(_mm256_max_epi32(s, _mm256_setzero_si256()), _mm256_set1_epi32(255));
    _mm_mask_storeu_epi8(dst, static_cast<__mmask16>((1u << m) - 1), _mm256_cvtepi32_epi8(s));
  }

  using Wide = __m512i;
  static constexpr int kBlock = 32;
  using Mask = __mmask32;
  static constexpr Mask kAll = ~0u;
  static constexpr bool kMaskedTail = true;
  static Mask firstBytes(int n) { return (1u << n) - 1; }
  JEPA_RESAMPLE_TARGET static __m512i zero() { return _mm512_setzero_si512(); }
  JEPA_RESAMPLE_TARGET static __m512i broadcast(int32_t w) { return _mm512_set1_epi32(w); }
  JEPA_RESAMPLE_TARGET static __m512i widen(const uint8_t* p, Mask m) { return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, p)); }
  JEPA_RESAMPLE_TARGET static __m512i interleaveLo(__m512i a, __m512i b) { return _mm512_unpacklo_epi16(a, b); }
  JEPA_RESAMPLE_TARGET static __m512i interleaveHi(__m512i a, __m512i b) { return _mm512_unpackhi_epi16(a, b); }
  JEPA_RESAMPLE_TARGET static __m512i dot(__m512i acc, __m512i x, __m512i w) { return _mm512_dpwssd_epi32(acc, x, w); }
  JEPA_RESAMPLE_TARGET static __m512i finish(__m512i h, __m512i l) {
    return _mm512_srai_epi32(_mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(h, 11), l), _mm512_set1_epi32(kHalf)), kBits);
  }
  JEPA_RESAMPLE_TARGET static void storeBlock(uint8_t* p, Mask m, __m512i a, __m512i b) {
    _mm256_mask_storeu_epi8(p, m, _mm512_cvtusepi16_epi8(_mm512_max_epi16(_mm512_packs_epi32(a, b), _mm512_setzero_si512())));
  }
};

}  // namespace

bool avx512Supported() {
  __builtin_cpu_init();
  return cpuHasAvx512Vnni() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

const Kernels& avx512() {
  static const Kernels k{16, deinterleave<Avx512>, horizontal<Avx512>, vertical<Avx512>};
  return k;
}

}  // namespace kernels
}  // namespace image
}  // namespace jepa

#else
namespace jepa {
namespace image {
namespace kernels {
bool avx512Supported() { return false; }
const Kernels& avx512() { return scalar(); }
}  // namespace kernels
}  // namespace image
}  // namespace jepa
#endif
