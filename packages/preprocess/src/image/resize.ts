import { PreprocessError } from '../errors.js';
import type { RgbImage } from './types.js';

export type ResampleFilter = 'bilinear' | 'bicubic';

/**
 * Port of Pillow 9.4's antialiased resampler (libImaging/Resample.c), 8-bit integer path:
 * double-precision filter weights normalised per output pixel, quantised to 22 fractional
 * bits, a horizontal pass into a uint8 intermediate followed by a vertical pass. Every
 * floating-point expression keeps Pillow's operation order so the weights round identically.
 */
const PRECISION_BITS = 32 - 8 - 2;
const HALF = 1 << (PRECISION_BITS - 1);
const SCALE = 1 << PRECISION_BITS;

interface Filter {
  support: number;
  weight: (x: number) => number;
}

const BILINEAR: Filter = {
  support: 1.0,
  weight(x) {
    if (x < 0.0) x = -x;
    if (x < 1.0) return 1.0 - x;
    return 0.0;
  },
};

const BICUBIC_A = -0.5;
const BICUBIC: Filter = {
  support: 2.0,
  weight(x) {
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((BICUBIC_A + 2.0) * x - (BICUBIC_A + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * BICUBIC_A;
    return 0.0;
  },
};

interface Coefficients {
  /** Taps per output pixel (stride of `weights`). */
  ksize: number;
  /** Per output pixel: first input index, then tap count. */
  bounds: Int32Array;
  /** Fixed-point weights, `ksize` per output pixel. */
  weights: Int32Array;
}

function precomputeCoefficients(inSize: number, outSize: number, filter: Filter): Coefficients {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1.0);
  const support = filter.support * filterScale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const weights = new Int32Array(outSize * ksize);
  const taps = new Float64Array(ksize);
  const invFilterScale = 1.0 / filterScale;
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    // C's (int) cast truncates toward zero.
    let xmin = Math.trunc(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    let xmax = Math.trunc(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    let sum = 0.0;
    for (let x = 0; x < xmax; x++) {
      const w = filter.weight((x + xmin - center + 0.5) * invFilterScale);
      taps[x] = w;
      sum += w;
    }
    const base = xx * ksize;
    for (let x = 0; x < xmax; x++) {
      const w = sum !== 0.0 ? taps[x] / sum : taps[x];
      weights[base + x] = w < 0 ? Math.trunc(-0.5 + w * SCALE) : Math.trunc(0.5 + w * SCALE);
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { ksize, bounds, weights };
}

function clip8(acc: number): number {
  if (acc >= SCALE << 8) return 255;
  if (acc <= 0) return 0;
  return acc >> PRECISION_BITS;
}

function resampleHorizontal(src: Uint8Array, srcW: number, firstRow: number, rows: number, outW: number, c: Coefficients): Uint8Array {
  const out = new Uint8Array(outW * rows * 3);
  const { ksize, bounds, weights } = c;
  for (let y = 0; y < rows; y++) {
    const rowBase = (y + firstRow) * srcW * 3;
    const outBase = y * outW * 3;
    for (let xx = 0; xx < outW; xx++) {
      const xmin = bounds[xx * 2];
      const taps = bounds[xx * 2 + 1];
      const k = xx * ksize;
      let s0 = HALF;
      let s1 = HALF;
      let s2 = HALF;
      let p = rowBase + xmin * 3;
      for (let x = 0; x < taps; x++, p += 3) {
        const w = weights[k + x];
        // int32 accumulation, as Pillow's INT32 sums; it also keeps V8 on integer arithmetic.
        s0 = (s0 + Math.imul(src[p], w)) | 0;
        s1 = (s1 + Math.imul(src[p + 1], w)) | 0;
        s2 = (s2 + Math.imul(src[p + 2], w)) | 0;
      }
      const o = outBase + xx * 3;
      out[o] = clip8(s0);
      out[o + 1] = clip8(s1);
      out[o + 2] = clip8(s2);
    }
  }
  return out;
}

function resampleVertical(src: Uint8Array, width: number, rowOffset: number, outH: number, c: Coefficients): Uint8Array {
  const stride = width * 3;
  const out = new Uint8Array(stride * outH);
  const { ksize, bounds, weights } = c;
  for (let yy = 0; yy < outH; yy++) {
    const ymin = bounds[yy * 2] - rowOffset;
    const taps = bounds[yy * 2 + 1];
    const k = yy * ksize;
    const outBase = yy * stride;
    for (let i = 0; i < stride; i++) {
      let s = HALF;
      let p = ymin * stride + i;
      for (let y = 0; y < taps; y++, p += stride) s = (s + Math.imul(src[p], weights[k + y])) | 0;
      out[outBase + i] = clip8(s);
    }
  }
  return out;
}

function checkSize(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PreprocessError('invalid_argument', `resizeU8: ${what} must be a positive integer, got ${value}`);
  }
}

/** Antialiased resize of an RGB uint8 image, bit-exact with Pillow 9.4 `Image.resize(size, BILINEAR|BICUBIC)`. */
export function resizeU8(img: RgbImage, outW: number, outH: number, filter: ResampleFilter): RgbImage {
  checkSize('input width', img.width);
  checkSize('input height', img.height);
  checkSize('output width', outW);
  checkSize('output height', outH);
  if (img.data.length !== img.width * img.height * 3) {
    throw new PreprocessError(
      'shape_mismatch',
      `resizeU8: ${img.width}x${img.height} RGB needs ${img.width * img.height * 3} bytes, got ${img.data.length}`,
    );
  }
  if (filter !== 'bilinear' && filter !== 'bicubic') {
    throw new PreprocessError('invalid_argument', `resizeU8: unknown filter '${String(filter)}' (bilinear or bicubic)`);
  }
  if (outW === img.width && outH === img.height) {
    return { width: outW, height: outH, data: img.data.slice() };
  }
  const f = filter === 'bicubic' ? BICUBIC : BILINEAR;
  const horizontal = precomputeCoefficients(img.width, outW, f);
  const vertical = precomputeCoefficients(img.height, outH, f);

  let data = img.data;
  let rowOffset = 0;
  if (outW !== img.width) {
    // Only the source rows the vertical pass will read are resampled horizontally.
    const firstRow = vertical.bounds[0];
    const lastRow = vertical.bounds[outH * 2 - 2] + vertical.bounds[outH * 2 - 1];
    const rows = outH !== img.height ? lastRow - firstRow : img.height;
    const start = outH !== img.height ? firstRow : 0;
    data = resampleHorizontal(data, img.width, start, rows, outW, horizontal);
    rowOffset = start;
  }
  if (outH !== img.height) {
    data = resampleVertical(data, outW, rowOffset, outH, vertical);
  }
  return { width: outW, height: outH, data };
}
