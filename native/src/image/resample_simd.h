// The resampler's SIMD kernels, written once for every x86 level. A level's translation unit
// (resample_avx2.cpp, resample_avx512.cpp) defines JEPA_RESAMPLE_TARGET, its target attribute, before
// it includes this, then instantiates the kernels on a struct L of the few operations that differ:
//
//   L::widenRgb(dst, v)          32 bytes of one channel to 32 int16 at dst
//   L::dot(acc, x, w)            acc + x · w over int16 pairs (vpmaddwd, or vpdpwssd), also on L::Wide
//   L::storeOutputs(dst, s, m)   the first m of 8 int32 sums, clipped to bytes
//   L::Wide, L::kBlock           the vertical pass's vector and the bytes it widens into one
//   L::Mask, L::kAll             which of a vertical block's bytes are read and written
//   L::kMaskedTail, L::firstBytes(n)  whether the last partial block is masked (or goes scalar)
//   L::zero(), L::broadcast(w), L::widen(p, mask), L::interleaveLo/Hi(a, b), L::finish(h, l),
//   L::storeBlock(p, mask, a, b) the vertical pass on L::Wide
//
// Weights are 22-bit, so each is split as hi * 2048 + lo with both halves in int16 and multiplied
// pairwise; the two int32 sums recombine modulo 2^32, which is exactly the int32 sum Pillow forms.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "resample.h"

#ifndef JEPA_RESAMPLE_TARGET
#error "define JEPA_RESAMPLE_TARGET (the level's target attribute) before including resample_simd.h"
#endif

namespace jepa {
namespace image {
namespace kernels {
// Internal linkage: each level's translation unit compiles its own copy for its target.
namespace {

constexpr int kBits = 22;
constexpr int32_t kHalf = 1 << (kBits - 1);

template <typename L>
JEPA_RESAMPLE_TARGET void deinterleave(const uint8_t* src, int channels, int n, int16_t* planes, size_t planeStride) {
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
        L::widenRgb(planes + ch * planeStride + x, v);
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
template <typename L, int P, int K>
JEPA_RESAMPLE_TARGET inline void output(const int16_t* x, size_t planeStride, const int32_t* offset, const int16_t* hi, const int16_t* lo,
                                        int stride, int chunks, int j, bool live, __m256i* v) {
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
      h[c] = L::dot(h[c], d, wh);
      l[c] = L::dot(l[c], d, wl);
    }
  }
  for (int c = 0; c < P; ++c) v[c] = _mm256_add_epi32(_mm256_slli_epi32(h[c], 11), l[c]);
}

JEPA_RESAMPLE_TARGET inline __m256i pairSum(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}

JEPA_RESAMPLE_TARGET inline __m256i quadSum(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

// Outputs j0 .. j0 + 3 per plane: each 128-bit half of q[c] holds their partial sums.
template <typename L, int P, int K>
JEPA_RESAMPLE_TARGET inline void quad(const int16_t* x, size_t planeStride, const int32_t* offset, const int16_t* hi, const int16_t* lo,
                                      int stride, int chunks, int j0, int m, __m256i* q) {
  __m256i a[P], b[P], pa[P];
  output<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0, 0 < m, a);
  output<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 1, 1 < m, b);
  for (int c = 0; c < P; ++c) pa[c] = pairSum(a[c], b[c]);
  output<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 2, 2 < m, a);
  output<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 3, 3 < m, b);
  for (int c = 0; c < P; ++c) q[c] = quadSum(pa[c], pairSum(a[c], b[c]));
}

// Eight outputs at a time: one vector of partial sums each, then a transposing add tree. A block's
// weights stay in L1 while it runs over every row of the batch.
template <typename L, int P, int K>
JEPA_RESAMPLE_TARGET void horizontalChunks(const int16_t* planes, size_t planeStride, int nrows, size_t rowStride, const HorizontalPlan& p,
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
      quad<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0, m, q0);
      quad<L, P, K>(x, planeStride, offset, hi, lo, stride, chunks, j0 + 4, m - 4, q1);
      for (int c = 0; c < P; ++c) {
        const __m256i s = _mm256_add_epi32(_mm256_permute2x128_si256(q0[c], q1[c], 0x20), _mm256_permute2x128_si256(q0[c], q1[c], 0x31));
        L::storeOutputs(out[i] + static_cast<size_t>(c) * count + j0, _mm256_srai_epi32(_mm256_add_epi32(s, half), kBits), m);
      }
    }
  }
}

// Every output runs the same number of weight chunks (zero-padded), known at compile time when small.
template <typename L, int P>
JEPA_RESAMPLE_TARGET void horizontalPlanes(const int16_t* planes, size_t planeStride, int nrows, size_t rowStride, const HorizontalPlan& p,
                                           uint8_t* const* out) {
  switch (p.chunks) {
    case 1: return horizontalChunks<L, P, 1>(planes, planeStride, nrows, rowStride, p, out);
    case 2: return horizontalChunks<L, P, 2>(planes, planeStride, nrows, rowStride, p, out);
    case 3: return horizontalChunks<L, P, 3>(planes, planeStride, nrows, rowStride, p, out);
    case 4: return horizontalChunks<L, P, 4>(planes, planeStride, nrows, rowStride, p, out);
    default: return horizontalChunks<L, P, 0>(planes, planeStride, nrows, rowStride, p, out);
  }
}

template <typename L>
JEPA_RESAMPLE_TARGET void horizontal(const int16_t* planes, size_t planeStride, int nplanes, int nrows, size_t rowStride, const HorizontalPlan& p,
                                     uint8_t* const* out) {
  if (nplanes == 3) horizontalPlanes<L, 3>(planes, planeStride, nrows, rowStride, p, out);
  else horizontalPlanes<L, 1>(planes, planeStride, nrows, rowStride, p, out);
}

// B blocks of L::kBlock bytes at once, the last one `mask`ed, so 4 * B multiply-add chains are in flight.
template <typename L, int B>
JEPA_RESAMPLE_TARGET inline void verticalBlocks(const uint8_t* const* rows, const VerticalPairs& p, int i, typename L::Mask mask, uint8_t* out) {
  using Wide = typename L::Wide;
  Wide hA[B], hB[B], lA[B], lB[B];
  for (int b = 0; b < B; ++b) hA[b] = hB[b] = lA[b] = lB[b] = L::zero();
  for (size_t k = 0; k < p.hi.size(); ++k) {
    const uint8_t* r0 = rows[2 * k] + i;
    const uint8_t* r1 = p.second[k] + i;
    const Wide wh = L::broadcast(p.hi[k]);
    const Wide wl = L::broadcast(p.lo[k]);
    for (int b = 0; b < B; ++b) {
      const typename L::Mask m = b == B - 1 ? mask : L::kAll;
      const Wide x0 = L::widen(r0 + L::kBlock * b, m);
      const Wide x1 = L::widen(r1 + L::kBlock * b, m);
      const Wide a = L::interleaveLo(x0, x1);
      const Wide c = L::interleaveHi(x0, x1);
      hA[b] = L::dot(hA[b], a, wh);
      hB[b] = L::dot(hB[b], c, wh);
      lA[b] = L::dot(lA[b], a, wl);
      lB[b] = L::dot(lB[b], c, wl);
    }
  }
  for (int b = 0; b < B; ++b) L::storeBlock(out + i + L::kBlock * b, b == B - 1 ? mask : L::kAll, L::finish(hA[b], lA[b]), L::finish(hB[b], lB[b]));
}

template <typename L>
JEPA_RESAMPLE_TARGET void vertical(const uint8_t* const* rows, const int32_t* weights, int taps, int n, uint8_t* out) {
  const VerticalPairs p = pairUp(rows, weights, taps);
  int i = 0;
  for (; i + 2 * L::kBlock <= n; i += 2 * L::kBlock) verticalBlocks<L, 2>(rows, p, i, L::kAll, out);
  if constexpr (L::kMaskedTail) {
    for (; i < n; i += L::kBlock) verticalBlocks<L, 1>(rows, p, i, n - i >= L::kBlock ? L::kAll : L::firstBytes(n - i), out);
  } else {
    for (; i + L::kBlock <= n; i += L::kBlock) verticalBlocks<L, 1>(rows, p, i, L::kAll, out);
    for (; i < n; ++i) {
      uint32_t s = kHalf;
      for (int k = 0; k < taps; ++k) s += static_cast<uint32_t>(rows[k][i] * weights[k]);
      const int32_t v = static_cast<int32_t>(s) >> kBits;
      out[i] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace image
}  // namespace jepa
