// Antialiased resize + crop (+ normalise) of HWC uint8 images, bit-exact with Pillow 9.4's 8-bit
// ImagingResample as packages/preprocess/src/image/resize.ts ports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jepa {
namespace image {

enum class Filter { Bilinear, Bicubic };

enum class Isa { Scalar, Avx2, Avx512 };

struct ResampleSpec {
  const uint8_t* src = nullptr;
  int width = 0, height = 0;
  int channels = 3;  // 1 (gray), 3 (RGB) or 4 (RGBA/RGBX, the 4th byte ignored)
  // EXIF orientation 1..8: the resample reads the stored width x height pixels as the upright image
  // ImageOps.exif_transpose would make of them (5..8 swap the sides); outW, outH and the crop are
  // in upright coordinates.
  int orientation = 1;
  int outW = 0, outH = 0;
  Filter filter = Filter::Bicubic;
  // The window of the outW x outH result that is produced.
  int left = 0, top = 0, cropW = 0, cropH = 0;
};

const char* isaName(Isa isa);
bool isaSupported(Isa isa);
// Every kernel this CPU runs, fastest first.
std::vector<Isa> supportedIsas();
bool parseIsa(const char* name, Isa* isa);

// cropH x cropW x 3 RGB bytes, row-major.
void resampleToU8(const ResampleSpec& spec, Isa isa, uint8_t* out);

// Channel c of the crop's (y, x) becomes out[c * channelStride + offset + y * cropW + x] =
// tables[c * 256 + value].
void resampleToPlanes(const ResampleSpec& spec, Isa isa, const float* tables, float* out, size_t channelStride,
                      size_t offset);

// The fixed-point filter of outputs [first, first + count) of an inSize -> outSize resize.
struct Coefficients {
  int ksize = 0;                // stride of `weights`
  std::vector<int32_t> start;   // first input index per output
  std::vector<int32_t> taps;    // inputs read per output
  std::vector<int32_t> weights; // 22-bit fixed point, ksize per output
};

Coefficients precomputeCoefficients(int inSize, int outSize, Filter filter, int first, int count);

namespace kernels {

// What the horizontal kernels read: for output j, taps[j] weights from plane[offset[j]]. The SIMD
// kernels take each weight split as w = hi * 2048 + lo (lo in [0, 2048)), both int16, zero-padded to
// `stride` = chunks * lanes for every output, so they read up to `stride` values past offset[j].
struct HorizontalPlan {
  int count = 0;
  const int32_t* offset = nullptr;
  const int32_t* taps = nullptr;
  const int32_t* weights = nullptr;  // ksize per output
  int ksize = 0;
  std::vector<int16_t> hi, lo;
  int stride = 0;
  int chunks = 0;
};

struct Kernels {
  int lanes;  // int16 weights per chunk in the horizontal kernel (0: takes int32 weights)
  // n pixels of a `channels`-byte row into `planes` int16 planes, planeStride apart (1 plane for gray).
  void (*deinterleave)(const uint8_t* src, int channels, int n, int16_t* planes, size_t planeStride);
  // nrows rows (rowStride apart) of planes (1 or 3, planeStride apart) -> for row i, plan.count bytes
  // per plane at out[i], each plane's after the last.
  void (*horizontal)(const int16_t* planes, size_t planeStride, int nplanes, int nrows, size_t rowStride,
                     const HorizontalPlan& plan, uint8_t* const* out);
  // out[i] = clip8(sum_k rows[k][i] * weights[k]) over n bytes.
  void (*vertical)(const uint8_t* const* rows, const int32_t* weights, int taps, int n, uint8_t* out);
};

// pshufb masks taking channel c of 16 RGB pixels out of the k-th of their three 16-byte blocks
// (-1 gives zero).
extern const int8_t kRgbShuffle[3][3][16];

// The vertical pass's weights, split as the horizontal ones, in pairs of rows for vpmaddwd /
// vpdpwssd: pair i is rows 2i and second[i] (an odd last row pairs with itself at weight zero), hi[i]
// and lo[i] their two int16 halves side by side.
struct VerticalPairs {
  std::vector<int32_t> hi, lo;
  std::vector<const uint8_t*> second;
};
VerticalPairs pairUp(const uint8_t* const* rows, const int32_t* weights, int taps);

const Kernels& scalar();
const Kernels& avx2();
const Kernels& avx512();
bool avx2Supported();
bool avx512Supported();

}  // namespace kernels
}  // namespace image
}  // namespace jepa
