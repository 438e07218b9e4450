// AVX2 kernels of the resampler (resample_simd.h): vpmaddwd products summed by vpaddd, partial blocks
// of the vertical pass in scalar code.
#include "cpu/cpu_level.h"
#include "resample.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cstring>

#define JEPA_RESAMPLE_TARGET __attribute__((target("avx2")))
#include "resample_simd.h"

namespace jepa {
namespace image {
namespace kernels {
namespace {

struct Avx2 {
  JEPA_RESAMPLE_TARGET static void widenRgb(int16_t* dst, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 16), _mm256_cvtepu8_epi16(_mm256_extracti128_si256(v, 1)));
  }
  JEPA_RESAMPLE_TARGET static __m256i dot(__m256i acc, __m256i x, __m256i w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w)); }
  JEPA_RESAMPLE_TARGET static void storeOutputs(uint8_t* dst, __m256i s, int m) {
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    const __m128i bytes = _mm_packus_epi16(w16, w16);
    if (m == 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), bytes);
    } else {
      alignas(16) uint8_t tmp[16];
      _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
      std::memcpy(dst, tmp, m);
    }
  }

  using Wide = __m256i;
  static constexpr int kBlock = 16;
  using Mask = bool;  // blocks are always whole
  static constexpr Mask kAll = true;
  static constexpr bool kMaskedTail = false;
  JEPA_RESAMPLE_TARGET static __m256i zero() { return _mm256_setzero_si256(); }
  JEPA_RESAMPLE_TARGET static __m256i broadcast(int32_t w) { return _mm256_set1_epi32(w); }
  JEPA_RESAMPLE_TARGET static __m256i widen(const uint8_t* p, Mask) { return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  JEPA_RESAMPLE_TARGET static __m256i interleaveLo(__m256i a, __m256i b) { return _mm256_unpacklo_epi16(a, b); }
  JEPA_RESAMPLE_TARGET static __m256i interleaveHi(__m256i a, __m256i b) { return _mm256_unpackhi_epi16(a, b); }
  JEPA_RESAMPLE_TARGET static __m256i finish(__m256i h, __m256i l) {
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(h, 11), l), _mm256_set1_epi32(kHalf)), kBits);
  }
  JEPA_RESAMPLE_TARGET static void storeBlock(uint8_t* p, Mask, __m256i a, __m256i b) {
    const __m256i w16 = _mm256_packs_epi32(a, b);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(_mm256_castsi256_si128(w16), _mm256_extracti128_si256(w16, 1)));
  }
};

}  // namespace

bool avx2Supported() {
  __builtin_cpu_init();
  return cpuLevel() >= CpuLevel::Avx2 && __builtin_cpu_supports("avx2");
}

const Kernels& avx2() {
  static const Kernels k{16, deinterleave<Avx2>, horizontal<Avx2>, vertical<Avx2>};
  return k;
}

}  // namespace kernels
}  // namespace image
}  // namespace jepa

#else
namespace jepa {
namespace image {
namespace kernels {
bool avx2Supported() { return false; }
const Kernels& avx2() { return scalar(); }
}  // namespace kernels
}  // namespace image
}  // namespace jepa
#endif
