// AVX-512 (F, BW, VL, VNNI) kernels of the resampler: the AVX2 scheme with vpdpwssd fusing each
// multiply-add and masked tails. The horizontal pass stays at 256 bits, which issue on three ports
// of this core to the two of 512-bit operations (measured faster); the vertical pass is 512-bit.


#include "cpu/cpu_level.h"
#include "resample.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

namespace jepa {
namespace image {
namespace kernels {
namespace {

constexpr int kBits = 22;
constexpr int32_t kHalf = 1 << (kBits - 1);

JEPA_AVX512 void deinterleave(const uint8_t* src, int channels, int n, int16_t* planes, size_t planeStride) {
  int x = 0;
  if (channels == 3) {
    // 32 pixels a step: each 128-bit half of a, b, c holds one run of 16 pixels.
    __m256i masks[3][3];
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) masks[c][k] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kRgbShuffle[c][k])));
    for (; x + 32 <= n; x += 32) {
      const uint8_t* p = src + 3 * x;
      const __m256i a = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 48), reinterpret_cast<const __m128i*>(p));
      const __m256i b = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 64), reinterpret_cast<const __m128i*>(p + 16));
      const __m256i c = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 80), reinterpret_cast<const __m128i*>(p + 32));
      for (int ch = 0; ch < 3; ++ch) {
        const __m256i v = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(a, masks[ch][0]), _mm256_shuffle_epi8(b, masks[ch][1])),
                                          _mm256_shuffle_epi8(c, masks[ch][2]));
        int16_t* dst = planes + ch * planeStride;
        _mm512_storeu_si512(dst + x, _mm512_cvtepu8_epi16(v));
      }
    }
  }
  if (channels == 4) {
    // 16 pixels a step: bytes to channel-major dwords per 128-bit half, then the halves' runs of 8
    // gathered per channel.
    const __m256i byChannel = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    const __m256i runs = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; x + 16 <= n; x += 16) {
      const uint8_t* p = src + 4 * x;
      const __m256i a = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), byChannel), runs);
      const __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32)), byChannel), runs);
      const __m256i rg = _mm256_permute4x64_epi64(_mm256_permute2x128_si256(a, b, 0x20), 0xd8);
      const __m256i ba = _mm256_permute4x64_epi64(_mm256_permute2x128_si256(a, b, 0x31), 0xd8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes + x), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(rg)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes + planeStride + x), _mm256_cvtepu8_epi16(_mm256_extracti128_si256(rg, 1)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes + 2 * planeStride + x), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(ba)));
    }
  }
  if (channels == 1) {
    for (; x + 16 <= n; x += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes + x), _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + x))));
    for (; x < n; ++x) planes[x] = src[x];
    return;
  }
  int16_t* __restrict r = planes;
  int16_t* __restrict g = planes + planeStride;
  int16_t* __restrict b = planes + 2 * planeStride;
  for (; x < n; ++x) {
    const uint8_t* p = src + static_cast<size_t>(x) * channels;
    r[x] = p[0];
    g[x] = p[1];
    b[x] = p[2];
  }
}

// Output j's partial sums in each of P planes (zeros past the last output): K weight chunks of 16
// (K = 0: `chunks` of them), each loaded once for all planes. The first multiply needs no accumulator.
template <int P, int K>
JEPA_AVX512 inline void output(const int16_t* x, size_t planeStride, const int32_t* offset, const int16_t* hi, const int16_t* lo, int stride,
                               int chunks, int j, bool live, __m256i* v) {
  if (!live) {
    for (int c = 0; c < P; ++c) v[c] = _mm256_setzero_si256();
    return;
  }
  const int n = K ? K : chunks;
  x += offset[j];
  hi += static_cast<size_t>(j) * stride;
  lo += static_cast<size_t>(j) * stride;
  __m256i h[P], l[P];
  {
    const __m256i wh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi));
    const __m256i wl = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo));
    for (int c = 0; c < P; ++c) {
      const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + c * planeStride));
      h[c] = _mm256_madd_epi16(d, wh);
      l[c] = _mm256_madd_epi16(d, wl);
    }
  }
  for (int k = 1; k < n; ++k) {
    const __m256i wh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi + 16 * k));
    const __m256i wl = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo + 16 * k));
    for (int c = 0; c < P; ++c) {
      const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + c * planeStride + 16 * k));
      h[c] = _mm256_dpwssd_epi32(h[c], d, wh);
      l[c] = _mm256_dpwssd_epi32(l[c], d, wl);
    }
  }
  for (int c = 0; c < P; ++c) v[c] = _mm256_add_epi32(_mm256_slli_epi32(h[c], 11), l[c]);
}

JEPA_AVX512 inline __m256i pairSum(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}

JEPA_AVX512 inline __m256i quadSum(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

// Outputs j0 .. j0 + 3 per plane: each 128-bit half of q[c] holds their partial sums.
template <int P, int K>
JEPA_AVX512 inline void quad(const int16_t* x, size_t planeStride, const int32_t* offset, const int16_t* hi, const int16_t* lo, int stride,
                             int chunks, int j0, int m, __m256i* q) {
  __m256i a[P], b[P], pa[P];
  output<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0, 0 < m, a);
  output<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 1, 1 < m, b);
  for (int c = 0; c < P; ++c) pa[c] = pairSum(a[c], b[c]);
  output<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 2, 2 < m, a);
  output<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 3, 3 < m, b);
  for (int c = 0; c < P; ++c) q[c] = quadSum(pa[c], pairSum(a[c], b[c]));
}

// Eight outputs at a time: one vector of partial sums each, then a transposing add tree. A block's
// weights stay in L1 while it runs over every row of the batch.
template <int P, int K>
JEPA_AVX512 void horizontalChunks(const int16_t* planes, size_t planeStride, int nrows, size_t rowStride, const HorizontalPlan& p,
                                  uint8_t* const* out) {
  const __m256i half = _mm256_set1_epi32(kHalf);
  const int count = p.count, stride = p.stride, chunks = p.chunks;
  const int32_t* offset = p.offset;
  const int16_t* hi = p.hi.data();
  const int16_t* lo = p.lo.data();
  for (int j0 = 0; j0 < count; j0 += 8) {
    const int m = count - j0 < 8 ? count - j0 : 8;
    for (int i = 0; i < nrows; ++i) {
      const int16_t* x = planes + i * rowStride;
      __m256i q0[P], q1[P];
      quad<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0, m, q0);
      quad<P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 4, m - 4, q1);
      for (int c = 0; c < P; ++c) {
        __m256i s = _mm256_add_epi32(_mm256_permute2x128_si256(q0[c], q1[c], 0x20), _mm256_permute2x128_si256(q0[c], q1[c], 0x31));
        s = _mm256_srai_epi32(_mm256_add_epi32(s, half), kBits);
        s = _mm256_min_epi32(_mm256_max_epi32(s, _mm256_setzero_si256()), _mm256_set1_epi32(255));
        _mm_mask_storeu_epi8(out[i] + static_cast<size_t>(c) * count + j0, static_cast<__mmask16>((1u << m) - 1), _mm256_cvtepi32_epi8(s));
      }
    }
  }
}

// Every output runs the same number of weight chunks (zero-padded), known at compile time when small.
template <int P>
JEPA_AVX512 void horizontalPlanes(const int16_t* planes, size_t planeStride, int nrows, size_t rowStride, const HorizontalPlan& p,
                                  uint8_t* const* out) {
  switch (p.chunks) {
    case 1: return horizontalChunks<P, 1>(planes, planeStride, nrows, rowStride, p, out);
    case 2: return horizontalChunks<P, 2>(planes, planeStride, nrows, rowStride, p, out);
    case 3: return horizontalChunks<P, 3>(planes, planeStride, nrows, rowStride, p, out);
    case 4: return horizontalChunks<P, 4>(planes, planeStride, nrows, rowStride, p, out);
    default: return horizontalChunks<P, 0>(planes, planeStride, nrows, rowStride, p, out);
  }
}

JEPA_AVX512 void horizontal(const int16_t* planes, size_t planeStride, int nplanes, int nrows, size_t rowStride, const HorizontalPlan& p,
                            uint8_t* const* out) {
  if (nplanes == 3) horizontalPlanes<3>(planes, planeStride, nrows, rowStride, p, out);
  else horizontalPlanes<1>(planes, planeStride, nrows, rowStride, p, out);
}

JEPA_AVX512 inline __m512i finish(__m512i h, __m512i l) {
  return _mm512_srai_epi32(_mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(h, 11), l), _mm512_set1_epi32(kHalf)), kBits);
}

// B blocks of 32 bytes at once, the last one `mask`ed; 4 * B vpdpwssd chains are in flight.
template <int B>
JEPA_AVX512 inline void verticalBlocks(const uint8_t* const* rows, const VerticalPairs& p, int i, __mmask32 mask, uint8_t* out) {
  __m512i hA[B], hB[B], lA[B], lB[B];
  for (int b = 0; b < B; ++b) hA[b] = hB[b] = lA[b] = lB[b] = _mm512_setzero_si512();
  for (size_t k = 0; k < p.hi.size(); ++k) {
    const uint8_t* r0 = rows[2 * k] + i;
    const uint8_t* r1 = p.second[k] + i;
    const __m512i wh = _mm512_set1_epi32(p.hi[k]);
    const __m512i wl = _mm512_set1_epi32(p.lo[k]);
    for (int b = 0; b < B; ++b) {
      const __mmask32 m = b == B - 1 ? mask : ~0u;
      const __m512i x0 = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, r0 + 32 * b));
      const __m512i x1 = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, r1 + 32 * b));
      const __m512i a = _mm512_unpacklo_epi16(x0, x1);
      const __m512i c = _mm512_unpackhi_epi16(x0, x1);
      hA[b] = _mm512_dpwssd_epi32(hA[b], a, wh);
      hB[b] = _mm512_dpwssd_epi32(hB[b], c, wh);
      lA[b] = _mm512_dpwssd_epi32(lA[b], a, wl);
      lB[b] = _mm512_dpwssd_epi32(lB[b], c, wl);
    }
  }
  for (int b = 0; b < B; ++b) {
    const __mmask32 m = b == B - 1 ? mask : ~0u;
    const __m512i w16 = _mm512_max_epi16(_mm512_packs_epi32(finish(hA[b], lA[b]), finish(hB[b], lB[b])), _mm512_setzero_si512());
    _mm256_mask_storeu_epi8(out + i + 32 * b, m, _mm512_cvtusepi16_epi8(w16));
  }
}

JEPA_AVX512 void vertical(const uint8_t* const* rows, const int32_t* weights, int taps, int n, uint8_t* out) {
  const VerticalPairs p = pairUp(rows, weights, taps);
  int i = 0;
  for (; i + 64 <= n; i += 64) verticalBlocks<2>(rows, p, i, ~0u, out);
  for (; i < n; i += 32) {
    const int left = n - i;
    verticalBlocks<1>(rows, p, i, left >= 32 ? ~0u : (1u << left) - 1, out);
  }
}

}  // namespace

bool avx512Supported() {
  __builtin_cpu_init();
  return cpuHasAvx512Vnni() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

const Kernels& avx512() {
  static const Kernels k{16, deinterleave, horizontal, vertical};
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
