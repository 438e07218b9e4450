#include "resample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace jepa {
namespace image {

namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;
constexpr int32_t kHalf = 1 << (kPrecisionBits - 1);
constexpr double kScale = static_cast<double>(1 << kPrecisionBits);
// Source rows per horizontal kernel call: each output's weights are then read from L1 for all of them.
constexpr int kBatch = 8;

double bilinear(double x) {
  if (x < 0.0) x = -x;
  if (x < 1.0) return 1.0 - x;
  return 0.0;
}

constexpr double kBicubicA = -0.5;

double bicubic(double x) {
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((kBicubicA + 2.0) * x - (kBicubicA + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * kBicubicA;
  return 0.0;
}

inline uint8_t clip8(int32_t acc) {
  if (acc >= (1 << (kPrecisionBits + 8))) return 255;
  if (acc <= 0) return 0;
  return static_cast<uint8_t>(acc >> kPrecisionBits);
}

void deinterleaveScalar(const uint8_t* src, int channels, int n, int16_t* planes, size_t planeStride) {
  if (channels == 1) {
    for (int x = 0; x < n; ++x) planes[x] = src[x];
    return;
  }
  int16_t* r = planes;
  int16_t* g = planes + planeStride;
  int16_t* b = planes + 2 * planeStride;
  for (int x = 0; x < n; ++x) {
    const uint8_t* p = src + static_cast<size_t>(x) * channels;
    r[x] = p[0];
    g[x] = p[1];
    b[x] = p[2];
  }
}

// Unsigned sums wrap as Pillow's (and resize.ts's |0) int32 sums do, without signed overflow.
void horizontalScalar(const int16_t* planes, size_t planeStride, int nplanes, int nrows, size_t rowStride,
                      const kernels::HorizontalPlan& p, uint8_t* const* out) {
  for (int i = 0; i < nrows; ++i)
    for (int c = 0; c < nplanes; ++c)
      for (int j = 0; j < p.count; ++j) {
        const int16_t* x = planes + i * rowStride + c * planeStride + p.offset[j];
        const int32_t* w = p.weights + static_cast<size_t>(j) * p.ksize;
        uint32_t s = kHalf;
        for (int k = 0; k < p.taps[j]; ++k) s += static_cast<uint32_t>(x[k] * w[k]);
        out[i][static_cast<size_t>(c) * p.count + j] = clip8(static_cast<int32_t>(s));
      }
}

void verticalScalar(const uint8_t* const* rows, const int32_t* weights, int taps, int n, uint8_t* out) {
  for (int i = 0; i < n; ++i) {
    uint32_t s = kHalf;
    for (int k = 0; k < taps; ++k) s += static_cast<uint32_t>(rows[k][i] * weights[k]);
    out[i] = clip8(static_cast<int32_t>(s));
  }
}

const kernels::Kernels& kernelsFor(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return kernels::avx512();
    case Isa::Avx2: return kernels::avx2();
    default: return kernels::scalar();
  }
}

// Fills the split int16 weights the SIMD horizontal kernels read.
void splitWeights(kernels::HorizontalPlan& plan, int lanes) {
  int maxTaps = 0;
  for (int j = 0; j < plan.count; ++j) maxTaps = std::max(maxTaps, plan.taps[j]);
  plan.stride = (maxTaps + lanes - 1) / lanes * lanes;
  plan.hi.assign(static_cast<size_t>(plan.count) * plan.stride, 0);
  plan.lo.assign(plan.hi.size(), 0);
  plan.chunks = plan.stride / lanes;
  for (int j = 0; j < plan.count; ++j) {
    const int32_t* w = plan.weights + static_cast<size_t>(j) * plan.ksize;
    int16_t* hi = plan.hi.data() + static_cast<size_t>(j) * plan.stride;
    int16_t* lo = plan.lo.data() + static_cast<size_t>(j) * plan.stride;
    for (int k = 0; k < plan.taps[j]; ++k) {
      hi[k] = static_cast<int16_t>(w[k] >> 11);
      lo[k] = static_cast<int16_t>(w[k] & 0x7ff);
    }
  }
}

struct U8Sink {
  uint8_t* out;
  int cropW;

  void planar(int y, const uint8_t* row, int planes) const {
    uint8_t* dst = out + static_cast<size_t>(y) * cropW * 3;
    const uint8_t* r = row;
    const uint8_t* g = planes == 1 ? row : row + cropW;
    const uint8_t* b = planes == 1 ? row : row + 2 * cropW;
    for (int x = 0; x < cropW; ++x) {
      dst[3 * x] = r[x];
      dst[3 * x + 1] = g[x];
      dst[3 * x + 2] = b[x];
    }
  }

  void interleaved(int y, const uint8_t* row, int channels) const {
    uint8_t* dst = out + static_cast<size_t>(y) * cropW * 3;
    if (channels == 3) {
      std::memcpy(dst, row, static_cast<size_t>(cropW) * 3);
      return;
    }
    for (int x = 0; x < cropW; ++x) {
      const uint8_t* p = row + static_cast<size_t>(x) * channels;
      dst[3 * x] = p[0];
      dst[3 * x + 1] = channels == 1 ? p[0] : p[1];
      dst[3 * x + 2] = channels == 1 ? p[0] : p[2];
    }
  }
};

struct PlaneSink {
  const float* tables;
  float* out;
  size_t channelStride, offset;
  int cropW;

  float* dst(int c, int y) const {
    return out + c * channelStride + offset + static_cast<size_t>(y) * cropW;
  }

  void planar(int y, const uint8_t* row, int planes) const {
    for (int c = 0; c < 3; ++c) {
      const float* t = tables + 256 * c;
      const uint8_t* src = planes == 1 ? row : row + static_cast<size_t>(c) * cropW;
      float* d = dst(c, y);
      for (int x = 0; x < cropW; ++x) d[x] = t[src[x]];
    }
  }

  void interleaved(int y, const uint8_t* row, int channels) const {
    for (int c = 0; c < 3; ++c) {
      const float* t = tables + 256 * c;
      const uint8_t* src = row + (channels == 1 ? 0 : c);
      float* d = dst(c, y);
      for (int x = 0; x < cropW; ++x) d[x] = t[src[static_cast<size_t>(x) * channels]];
    }
  }
};

// The passes resize.ts runs, restricted to what the crop reads: the horizontal pass for the crop's
// columns of the source rows its rows need (streamed through a ring of rows), the vertical pass for
// its rows. Rows reach the sink either as planes (after a horizontal pass) or interleaved as in the
// source.
// The stored pixels as the upright image: pixel (x, y) of it is at base + x * dx + y * dy.
struct UprightView {
  const uint8_t* base;
  ptrdiff_t dx, dy;
  int width, height, channels;

  UprightView(const ResampleSpec& s) : channels(s.channels) {
    const ptrdiff_t C = s.channels, row = static_cast<ptrdiff_t>(s.width) * C;
    const ptrdiff_t lastX = (s.width - 1) * C, lastY = (s.height - 1) * row;
    const bool swap = s.orientation >= 5;
    width = swap ? s.height : s.width;
    height = swap ? s.width : s.height;
    // Per orientation, the stored pixel behind upright (x, y), as exif_transpose's transposes map it.
    switch (s.orientation) {
      case 2: base = s.src + lastX; dx = -C; dy = row; break;            // FLIP_LEFT_RIGHT
      case 3: base = s.src + lastX + lastY; dx = -C; dy = -row; break;    // ROTATE_180
      case 4: base = s.src + lastY; dx = C; dy = -row; break;             // FLIP_TOP_BOTTOM
      case 5: base = s.src; dx = row; dy = C; break;                      // TRANSPOSE
      case 6: base = s.src + lastY; dx = -row; dy = C; break;             // ROTATE_270
      case 7: base = s.src + lastX + lastY; dx = -row; dy = -C; break;    // TRANSVERSE
      case 8: base = s.src + lastX; dx = row; dy = -C; break;             // ROTATE_90
      default: base = s.src; dx = C; dy = row; break;
    }
  }

  // n pixels of upright row y from column x0, contiguous: in place when the stored row runs that
  // way, else gathered into scratch (n * channels bytes).
  const uint8_t* row(int y, int x0, int n, uint8_t* scratch) const {
    const uint8_t* p = base + y * dy + x0 * dx;
    if (dx == channels) return p;
    for (int i = 0; i < n; ++i, p += dx)
      for (int c = 0; c < channels; ++c) scratch[i * channels + c] = p[c];
    return scratch;
  }
};

template <class Sink>
void run(const ResampleSpec& s, const kernels::Kernels& k, const Sink& sink) {
  const UprightView view(s);
  const bool doH = s.outW != view.width;
  const bool doV = s.outH != view.height;
  const int C = s.channels;
  const int P = C == 1 ? 1 : 3;
  std::vector<uint8_t> gather(static_cast<size_t>(view.width) * C);

  if (!doH && !doV) {
    for (int y = 0; y < s.cropH; ++y) sink.interleaved(y, view.row(s.top + y, s.left, s.cropW, gather.data()), C);
    return;
  }

  Coefficients hc;
  kernels::HorizontalPlan plan;
  std::vector<int32_t> offsets;
  std::vector<int16_t> planes;
  size_t planeStride = 0;
  int x0 = 0, span = 0;
  if (doH) {
    hc = precomputeCoefficients(view.width, s.outW, s.filter, s.left, s.cropW);
    x0 = hc.start[0];
    int x1 = 0;
    for (int j = 0; j < s.cropW; ++j) x1 = std::max(x1, hc.start[j] + hc.taps[j]);
    span = x1 - x0;
    offsets.resize(s.cropW);
    for (int j = 0; j < s.cropW; ++j) offsets[j] = hc.start[j] - x0;
    plan.count = s.cropW;
    plan.offset = offsets.data();
    plan.taps = hc.taps.data();
    plan.weights = hc.weights.data();
    plan.ksize = hc.ksize;
    if (k.lanes) splitWeights(plan, k.lanes);
    // Room after each plane for the SIMD chunks that run past an output's last tap.
    planeStride = static_cast<size_t>(span) + plan.stride + 64;
    planes.assign(kBatch * P * planeStride, 0);
  }
  // Source rows r0 .. r0 + n - 1 (n <= kBatch) through the horizontal pass into dst[0 .. n - 1].
  auto horizontalRows = [&](int r0, int n, uint8_t* const* dst) {
    for (int i = 0; i < n; ++i)
      k.deinterleave(view.row(r0 + i, x0, span, gather.data()), C, span, planes.data() + i * P * planeStride, planeStride);
    k.horizontal(planes.data(), planeStride, P, n, P * planeStride, plan, dst);
  };

  const int rowBytes = (doH ? P : C) * s.cropW;
  std::vector<uint8_t> row(rowBytes);
  if (!doV) {
    std::vector<uint8_t> batch(static_cast<size_t>(kBatch) * rowBytes);
    uint8_t* dst[kBatch];
    for (int i = 0; i < kBatch; ++i) dst[i] = batch.data() + static_cast<size_t>(i) * rowBytes;
    for (int y0 = 0; y0 < s.cropH; y0 += kBatch) {
      const int n = std::min(kBatch, s.cropH - y0);
      horizontalRows(s.top + y0, n, dst);
      for (int i = 0; i < n; ++i) sink.planar(y0 + i, dst[i], P);
    }
    return;
  }

  Coefficients vc = precomputeCoefficients(view.height, s.outH, s.filter, s.top, s.cropH);
  std::vector<const uint8_t*> rows(vc.ksize);
  if (!doH) {
    std::vector<uint8_t> tapRows(static_cast<size_t>(vc.ksize) * rowBytes);
    for (int y = 0; y < s.cropH; ++y) {
      for (int t = 0; t < vc.taps[y]; ++t)
        rows[t] = view.row(vc.start[y] + t, s.left, s.cropW, tapRows.data() + static_cast<size_t>(t) * rowBytes);
      k.vertical(rows.data(), vc.weights.data() + static_cast<size_t>(y) * vc.ksize, vc.taps[y], rowBytes, row.data());
      sink.interleaved(y, row.data(), C);
    }
    return;
  }

  // Windows of source rows only move forward, and none is longer than the ring, so a row's slot is
  // reused only once no later window can include it.
  int ringRows = 0;
  for (int y = 0; y < s.cropH; ++y) ringRows = std::max(ringRows, vc.taps[y]);
  std::vector<uint8_t> ring(static_cast<size_t>(ringRows) * rowBytes);
  auto slot = [&](int r) { return ring.data() + static_cast<size_t>(r % ringRows) * rowBytes; };
  int next = 0;
  for (int y = 0; y < s.cropH; ++y) {
    const int ymin = vc.start[y], taps = vc.taps[y];
    for (int r0 = std::max(next, ymin); r0 < ymin + taps; r0 += kBatch) {
      const int n = std::min(kBatch, ymin + taps - r0);
      uint8_t* dst[kBatch];
      for (int i = 0; i < n; ++i) dst[i] = slot(r0 + i);
      horizontalRows(r0, n, dst);
    }
    next = std::max(next, ymin + taps);
    for (int t = 0; t < taps; ++t) rows[t] = slot(ymin + t);
    k.vertical(rows.data(), vc.weights.data() + static_cast<size_t>(y) * vc.ksize, taps, rowBytes, row.data());
    sink.planar(y, row.data(), P);
  }
}

}  // namespace

Coefficients precomputeCoefficients(int inSize, int outSize, Filter filter, int first, int count) {
  double (*weight)(double) = filter == Filter::Bicubic ? bicubic : bilinear;
  const double filterSupport = filter == Filter::Bicubic ? 2.0 : 1.0;
  const double scale = static_cast<double>(inSize) / outSize;
  const double filterScale = scale < 1.0 ? 1.0 : scale;
  const double support = filterSupport * filterScale;
  const double invFilterScale = 1.0 / filterScale;
  Coefficients c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.start.resize(count);
  c.taps.resize(count);
  c.weights.assign(static_cast<size_t>(count) * c.ksize, 0);
  std::vector<double> k(c.ksize);
  for (int j = 0; j < count; ++j) {
    const int xx = first + j;
    const double center = (xx + 0.5) * scale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    double sum = 0.0;
    for (int x = 0; x < xmax; ++x) {
      const double w = weight((x + xmin - center + 0.5) * invFilterScale);
      k[x] = w;
      sum += w;
    }
    int32_t* out = c.weights.data() + static_cast<size_t>(j) * c.ksize;
    for (int x = 0; x < xmax; ++x) {
      const double w = sum != 0.0 ? k[x] / sum : k[x];
      out[x] = w < 0 ? static_cast<int32_t>(-0.5 + w * kScale) : static_cast<int32_t>(0.5 + w * kScale);
    }
    c.start[j] = xmin;
    c.taps[j] = xmax;
  }
  return c;
}

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "scalar";
  }
}

bool isaSupported(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return kernels::avx512Supported();
    case Isa::Avx2: return kernels::avx2Supported();
    default: return true;
  }
}

std::vector<Isa> supportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Scalar})
    if (isaSupported(isa)) out.push_back(isa);
  return out;
}

bool parseIsa(const char* name, Isa* isa) {
  for (Isa candidate : {Isa::Avx512, Isa::Avx2, Isa::Scalar})
    if (std::strcmp(name, isaName(candidate)) == 0) {
      *isa = candidate;
      return true;
    }
  return false;
}

void resampleToU8(const ResampleSpec& spec, Isa isa, uint8_t* out) {
  run(spec, kernelsFor(isa), U8Sink{out, spec.cropW});
}

void resampleToPlanes(const ResampleSpec& spec, Isa isa, const float* tables, float* out, size_t channelStride,
                      size_t offset) {
  run(spec, kernelsFor(isa), PlaneSink{tables, out, channelStride, offset, spec.cropW});
}

namespace kernels {

alignas(16) const int8_t kRgbShuffle[3][3][16] = {
    {{0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13}},
    {{1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14}},
    {{2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15}},
};

VerticalPairs pairUp(const uint8_t* const* rows, const int32_t* weights, int taps) {
  const int n = (taps + 1) / 2;
  VerticalPairs p;
  p.hi.resize(n);
  p.lo.resize(n);
  p.second.resize(n);
  for (int i = 0; i < n; ++i) {
    const int32_t w0 = weights[2 * i];
    const int32_t w1 = 2 * i + 1 < taps ? weights[2 * i + 1] : 0;
    p.hi[i] = static_cast<int32_t>(static_cast<uint16_t>(w0 >> 11) | static_cast<uint32_t>(static_cast<uint16_t>(w1 >> 11)) << 16);
    p.lo[i] = static_cast<int32_t>(static_cast<uint16_t>(w0 & 0x7ff) | static_cast<uint32_t>(w1 & 0x7ff) << 16);
    p.second[i] = 2 * i + 1 < taps ? rows[2 * i + 1] : rows[2 * i];
  }
  return p;
}

const Kernels& scalar() {
  static const Kernels k{0, deinterleaveScalar, horizontalScalar, verticalScalar};
  return k;
}

}  // namespace kernels
}  // namespace image
}  // namespace jepa
