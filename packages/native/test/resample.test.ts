import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cropOffset,
  normalizationTables,
  preprocessClip,
  preprocessImage,
  resizeAndCropU8,
  resizedSize,
  resizeU8,
  type PreprocessRecipe,
  type RgbImage,
  writeNormalizedPlanes,
} from '@jepa/preprocess';
// Not exported by the package; the function preprocessImage writes planes with.
import {
  NativeError,
  resampleKernels,
  resampleNormalize,
  resampleNormalizeSync,
  resampleU8,
  resampleU8Sync,
  type ResampleCrop,
  type ResampleJob,
} from '../src/index.js';
import { rng } from './helpers.js';

type Filter = 'bilinear' | 'bicubic';
type Channels = 1 | 3 | 4;

function randomBytes(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 256);
  return out;
}

/** The RGB image resize.ts sees for an input of `channels` bytes per pixel. */
function toRgb(src: Uint8Array, width: number, height: number, channels: Channels): RgbImage {
  if (channels === 3) return { width, height, data: src };
  const data = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) data[p * 3 + c] = src[p * channels + (channels === 1 ? 0 : c)];
  }
  return { width, height, data };
}

function cropRgb(img: RgbImage, crop: ResampleCrop): RgbImage {
  const data = new Uint8Array(crop.width * crop.height * 3);
  for (let y = 0; y < crop.height; y++) {
    const from = ((crop.top + y) * img.width + crop.left) * 3;
    data.set(img.data.subarray(from, from + crop.width * 3), y * crop.width * 3);
  }
  return { width: crop.width, height: crop.height, data };
}

/** Throws naming the first differing byte, rather than letting a diff of megabytes through. */
function expectSameBytes(got: Uint8Array, want: Uint8Array, what: string): void {
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} bytes, want ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) throw new Error(`${what}: byte ${i} is ${got[i]}, want ${want[i]}`);
  }
}

function expectSameBits(got: Float32Array, want: Float32Array, what: string): void {
  expectSameBytes(new Uint8Array(got.buffer, got.byteOffset, got.byteLength), new Uint8Array(want.buffer, want.byteOffset, want.byteLength), what);
}

const recipe: PreprocessRecipe = {
  mode: 'shortest_edge',
  resizeShort: 256,
  cropSize: 224,
  cropRounding: 'hf',
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
  resample: 'bicubic',
  rescaleFactor: 1 / 255,
};
const tableList = normalizationTables(recipe);
const tables = new Float32Array(768);
for (const [c, t] of tableList.entries()) tables.set(t, c * 256);

// [width, height, outWidth, outHeight]
const sizes: [number, number, number, number][] = [
  [64, 48, 32, 24],
  [300, 200, 37, 23],
  [250, 250, 224, 224],
  [97, 61, 256, 161],
  [223, 223, 224, 224],
  [20, 20, 60, 60], // odd-integer upscale: some weights are exactly 1.0
  [7, 5, 224, 224],
  [1000, 3, 200, 1],
  [3, 1000, 1, 200],
  [1, 57, 5, 20],
  [57, 1, 20, 5],
  [1, 1, 4, 3],
  [9, 1, 1, 1],
  [500, 10, 17, 10],
  [700, 50, 50, 50], // 57 bicubic taps per output
  [50, 700, 50, 50],
  [50, 40, 50, 90], // outWidth == width: no horizontal pass
  [33, 77, 33, 20],
  [50, 40, 120, 40], // outHeight == height: no vertical pass
  [129, 65, 64, 65],
  [50, 40, 50, 40], // a plain crop
  [65536, 1, 16, 1],
];

/** Every corner, the centre, the whole output, a single pixel and a column. */
function cropsOf(outW: number, outH: number, seed: number): (ResampleCrop | undefined)[] {
  const w = Math.max(1, Math.floor(outW * 0.6));
  const h = Math.max(1, Math.floor(outH * 0.6));
  const r = rng(seed);
  return [
    undefined,
    { left: 0, top: 0, width: w, height: h },
    { left: outW - w, top: 0, width: w, height: h },
    { left: 0, top: outH - h, width: w, height: h },
    { left: outW - w, top: outH - h, width: w, height: h },
    { left: cropOffset(outW, w, 'hf'), top: cropOffset(outH, h, 'torchvision'), width: w, height: h },
    { left: Math.floor(r() * outW), top: Math.floor(r() * outH), width: 1, height: 1 },
    { left: Math.floor(r() * outW), top: 0, width: 1, height: outH },
  ];
}

interface Case {
  label: string;
  job: ResampleJob;
  resized: RgbImage;
}

const cases: Case[] = [];
let seed = 1;
for (const [width, height, outWidth, outHeight] of sizes) {
  for (const channels of [1, 3, 4] as Channels[]) {
    for (const filter of ['bilinear', 'bicubic'] as Filter[]) {
      const src = randomBytes(width * height * channels, seed++);
      const resized = resizeU8(toRgb(src, width, height, channels), outWidth, outHeight, filter);
      cases.push({
        label: `${width}x${height}x${channels} -> ${outWidth}x${outHeight} ${filter}`,
        job: { src, width, height, channels, outWidth, outHeight, filter },
        resized,
      });
    }
  }
}

function withKernel(isa: string): void {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.JEPA_RESAMPLE_ISA;
    process.env.JEPA_RESAMPLE_ISA = isa;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.JEPA_RESAMPLE_ISA;
    else process.env.JEPA_RESAMPLE_ISA = before;
  });
}

describe.each(resampleKernels())('resample, %s kernel', (isa) => {
  withKernel(isa);

  it('gives resizeU8 + crop byte for byte: sizes, filters, channels 1/3/4, crops at every corner', () => {
    for (const [i, { label, job, resized }] of cases.entries()) {
      for (const crop of cropsOf(job.outWidth, job.outHeight, i)) {
        const want = crop ? cropRgb(resized, crop).data : resized.data;
        expectSameBytes(resampleU8Sync({ ...job, crop }), want, `${label} crop ${JSON.stringify(crop)}`);
      }
    }
  });

  it('gives writeNormalizedPlanes bit for bit, at any channel stride and offset', () => {
    for (const [i, { label, job, resized }] of cases.entries()) {
      const crops = cropsOf(job.outWidth, job.outHeight, i);
      for (const crop of [crops[0], crops[4], crops[5]]) {
        const img = crop ? cropRgb(resized, crop) : resized;
        const planes = img.width * img.height;
        const stride = planes + (i % 3) * 7;
        const offset = i % 5;
        const fill = new Float32Array(randomBytes((2 * stride + offset + planes + 3) * 4, i).buffer);
        const want = fill.slice();
        writeNormalizedPlanes(img, tableList, want, stride, offset);
        const got = fill.slice();
        resampleNormalizeSync({ ...job, crop }, tables, got, stride, offset);
        expectSameBits(got, want, `${label} crop ${JSON.stringify(crop)}`);
      }
    }
  });

  it('gives the preprocess pipeline: resizeAndCropU8, preprocessImage and preprocessClip', () => {
    const recipes: PreprocessRecipe[] = [
      recipe,
      { ...recipe, resample: 'bilinear', cropRounding: 'torchvision' },
      { ...recipe, mode: 'squash', squashSize: 224, cropSize: undefined },
    ];
    for (const [w, h] of [
      [640, 480],
      [333, 500],
      [120, 90],
    ]) {
      for (const r of recipes) {
        const img: RgbImage = { width: w, height: h, data: randomBytes(w * h * 3, w + h) };
        const size = resizedSize(w, h, r);
        const cropSize = r.cropSize;
        const crop =
          cropSize === undefined
            ? undefined
            : {
                left: cropOffset(size.width, cropSize, r.cropRounding),
                top: cropOffset(size.height, cropSize, r.cropRounding),
                width: cropSize,
                height: cropSize,
              };
        const job: ResampleJob = {
          src: img.data,
          width: w,
          height: h,
          channels: 3,
          outWidth: size.width,
          outHeight: size.height,
          filter: r.resample,
          crop,
        };
        const label = `${w}x${h} ${r.mode} ${r.resample}`;
        expectSameBytes(resampleU8Sync(job), resizeAndCropU8(img, r).data, label);

        const want = preprocessImage(img, r);
        const got = new Float32Array(want.data.length);
        resampleNormalizeSync(job, tables, got, got.length / 3, 0);
        expectSameBits(got, want.data, label);

        const frames = [img, { ...img, data: randomBytes(w * h * 3, w * h) }, { ...img, data: randomBytes(w * h * 3, 7) }];
        const clip = preprocessClip(frames, r);
        const [, t, ch, cw] = clip.shape;
        const out = new Float32Array(clip.data.length);
        for (const [i, f] of frames.entries()) resampleNormalizeSync({ ...job, src: f.data }, tables, out, t * ch * cw, i * ch * cw);
        expectSameBits(out, clip.data, `${label} clip`);
      }
    }
  });
});

describe('resample', () => {
  it('runs off the main thread to the same bytes, many calls at once', async () => {
    const jobs = cases.filter((_, i) => i % 7 === 0).map((c) => ({ ...c.job, crop: cropsOf(c.job.outWidth, c.job.outHeight, 3)[5] }));
    const got = await Promise.all(jobs.map((j) => resampleU8(j)));
    for (const [i, g] of got.entries()) expectSameBytes(g, resampleU8Sync(jobs[i]), `job ${i}`);

    const outs = jobs.map((j) => new Float32Array(3 * j.crop!.width * j.crop!.height).fill(-7));
    await Promise.all(jobs.map((j, i) => resampleNormalize(j, tables, outs[i], outs[i].length / 3, 0)));
    outs.forEach((o, i) => {
      const want = new Float32Array(o.length);
      resampleNormalizeSync(jobs[i], tables, want, want.length / 3, 0);
      expectSameBits(o, want, `job ${i}`);
    });
  });

  it('copies the tables at the call: changing them while it runs changes nothing', async () => {
    const { job } = cases[1];
    const mine = tables.slice();
    const out = new Float32Array(3 * job.outWidth * job.outHeight);
    const done = resampleNormalize(job, mine, out, out.length / 3, 0);
    mine.fill(0);
    await done;
    const want = new Float32Array(out.length);
    resampleNormalizeSync(job, tables, want, want.length / 3, 0);
    expectSameBits(out, want, 'tables');
  });

  it('is exact on a 4000x3000 photo-sized input (shortest edge 256, centre crop 224)', () => {
    const [w, h] = [4000, 3000];
    const src = randomBytes(w * h * 3, 4000);
    for (const filter of ['bicubic', 'bilinear'] as Filter[]) {
      const r: PreprocessRecipe = { ...recipe, resample: filter };
      const img: RgbImage = { width: w, height: h, data: src };
      const want = resizeAndCropU8(img, r).data;
      const size = resizedSize(w, h, r);
      const crop = { left: cropOffset(size.width, 224, 'hf'), top: cropOffset(size.height, 224, 'hf'), width: 224, height: 224 };
      for (const isa of resampleKernels()) {
        process.env.JEPA_RESAMPLE_ISA = isa;
        try {
          expectSameBytes(
            resampleU8Sync({ src, width: w, height: h, channels: 3, outWidth: size.width, outHeight: size.height, filter, crop }),
            want,
            `${filter} ${isa}`,
          );
        } finally {
          delete process.env.JEPA_RESAMPLE_ISA;
        }
      }
    }
  });

  it('lists its kernels fastest first, scalar always among them', () => {
    const kernels = resampleKernels();
    expect(kernels.at(-1)).toBe('scalar');
    for (const k of kernels) expect(['avx512', 'avx2', 'scalar']).toContain(k);
  });
});

describe('resample refuses bad arguments, naming the field', () => {
  const src = randomBytes(8 * 6 * 3, 5);
  const job: ResampleJob = { src, width: 8, height: 6, channels: 3, outWidth: 4, outHeight: 3, filter: 'bicubic' };
  const out = new Float32Array(3 * 4 * 3);
  const bad = (patch: Record<string, unknown>) => ({ ...job, ...patch }) as unknown as ResampleJob;

  const jobCases: [string, unknown, string, RegExp][] = [
    ['not an object', null, 'BAD_ARGUMENT', /job must be an object/],
    ['an array', [], 'BAD_ARGUMENT', /job must be an object/],
    ['no src', bad({ src: undefined }), 'BAD_ARGUMENT', /job\.src must be a Uint8Array/],
    ['a Float32Array src', bad({ src: new Float32Array(144) }), 'BAD_ARGUMENT', /job\.src must be a Uint8Array/],
    ['an array src', bad({ src: Array.from(src) }), 'BAD_ARGUMENT', /job\.src must be a Uint8Array/],
    ['a short src', bad({ src: src.subarray(1) }), 'BAD_SHAPE', /job\.src holds 143 bytes.*= 144/],
    ['a long src', bad({ src: new Uint8Array(145) }), 'BAD_SHAPE', /job\.src holds 145 bytes/],
    ['the src of other channels', bad({ channels: 4 }), 'BAD_SHAPE', /job\.src holds 144 bytes.*= 192/],
    ['width 0', bad({ width: 0 }), 'BAD_ARGUMENT', /job\.width must be an integer in 1\.\.65536, got 0/],
    ['width 65537', bad({ width: 65537 }), 'BAD_ARGUMENT', /job\.width .*got 65537/],
    ['width 1.5', bad({ width: 1.5 }), 'BAD_ARGUMENT', /job\.width/],
    ['width NaN', bad({ width: NaN }), 'BAD_ARGUMENT', /job\.width/],
    ['width "8"', bad({ width: '8' }), 'BAD_ARGUMENT', /job\.width/],
    ['no height', bad({ height: undefined }), 'BAD_ARGUMENT', /job\.height .*got undefined/],
    ['height -6', bad({ height: -6 }), 'BAD_ARGUMENT', /job\.height/],
    ['channels 2', bad({ channels: 2 }), 'BAD_ARGUMENT', /job\.channels must be 1, 3 or 4, got 2/],
    ['channels "3"', bad({ channels: '3' }), 'BAD_ARGUMENT', /job\.channels/],
    ['outWidth 0', bad({ outWidth: 0 }), 'BAD_ARGUMENT', /job\.outWidth/],
    ['outWidth Infinity', bad({ outWidth: Infinity }), 'BAD_ARGUMENT', /job\.outWidth/],
    ['outHeight 65537', bad({ outHeight: 65537 }), 'BAD_ARGUMENT', /job\.outHeight/],
    ['filter nearest', bad({ filter: 'nearest' }), 'BAD_ARGUMENT', /job\.filter must be 'bilinear' or 'bicubic'/],
    ['no filter', bad({ filter: undefined }), 'BAD_ARGUMENT', /job\.filter/],
    ['crop null', bad({ crop: null }), 'BAD_ARGUMENT', /job\.crop must be an object/],
    ['crop left -1', bad({ crop: { left: -1, top: 0, width: 2, height: 2 } }), 'BAD_ARGUMENT', /job\.crop\.left/],
    ['crop top 0.5', bad({ crop: { left: 0, top: 0.5, width: 2, height: 2 } }), 'BAD_ARGUMENT', /job\.crop\.top/],
    ['crop width 0', bad({ crop: { left: 0, top: 0, width: 0, height: 2 } }), 'BAD_ARGUMENT', /job\.crop\.width/],
    ['no crop height', bad({ crop: { left: 0, top: 0, width: 2 } }), 'BAD_ARGUMENT', /job\.crop\.height/],
    ['crop past the right edge', bad({ crop: { left: 3, top: 0, width: 2, height: 2 } }), 'BAD_SHAPE', /job\.crop columns 3\.\.5 .*4-wide.*outWidth/],
    ['crop past the bottom', bad({ crop: { left: 0, top: 0, width: 4, height: 4 } }), 'BAD_SHAPE', /job\.crop rows 0\.\.4 .*3-high.*outHeight/],
  ];

  async function expectRefusal(run: () => unknown, code: string, message: RegExp): Promise<void> {
    let thrown: unknown;
    try {
      await run();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(NativeError);
    expect((thrown as NativeError).code).toBe(code);
    expect((thrown as NativeError).message).toMatch(message);
  }

  it.each(jobCases)('a job with %s', async (_, j, code, message) => {
    const b = j as ResampleJob;
    await expectRefusal(() => resampleU8Sync(b), code, message);
    await expectRefusal(() => resampleU8(b), code, message);
    await expectRefusal(() => resampleNormalizeSync(b, tables, out, 12, 0), code, message);
    await expectRefusal(() => resampleNormalize(b, tables, out, 12, 0), code, message);
  });

  const normalizeCases: [string, unknown[], string, RegExp][] = [
    ['Float64Array tables', [new Float64Array(768), out, 12, 0], 'BAD_ARGUMENT', /tables must be a Float32Array/],
    ['767 table values', [new Float32Array(767), out, 12, 0], 'BAD_SHAPE', /tables must hold 3 x 256 = 768 values, got 767/],
    ['no out', [tables, undefined, 12, 0], 'BAD_ARGUMENT', /out must be a Float32Array/],
    ['a Uint8Array out', [tables, new Uint8Array(36), 12, 0], 'BAD_ARGUMENT', /out must be a Float32Array/],
    ['a short out', [tables, new Float32Array(35), 12, 0], 'BAD_SHAPE', /out holds 35 values.* = 36 are written/],
    ['a short out for its offset', [tables, out, 12, 1], 'BAD_SHAPE', /out holds 36 values.* = 37 are written/],
    ['overlapping planes', [tables, out, 11, 0], 'BAD_ARGUMENT', /channelStride must be at least .* = 12, got 11/],
    ['a negative channelStride', [tables, out, -12, 0], 'BAD_ARGUMENT', /channelStride/],
    ['a fractional channelStride', [tables, out, 12.5, 0], 'BAD_ARGUMENT', /channelStride must be an integer/],
    ['a negative offset', [tables, out, 12, -1], 'BAD_ARGUMENT', /offset must be >= 0/],
    ['no offset', [tables, out, 12], 'BAD_ARGUMENT', /offset must be a number/],
  ];

  it.each(normalizeCases)('normalising with %s', async (_, args, code, message) => {
    const [t, o, s, off] = args as [Float32Array, Float32Array, number, number];
    await expectRefusal(() => resampleNormalizeSync(job, t, o, s, off), code, message);
    await expectRefusal(() => resampleNormalize(job, t, o, s, off), code, message);
  });

  it('accepts the largest sides and an exactly long enough out', () => {
    expect(resampleU8Sync({ ...job, outWidth: 65536, outHeight: 1, crop: { left: 65535, top: 0, width: 1, height: 1 } })).toHaveLength(3);
    expect(() => resampleNormalizeSync(job, tables, out, 12, 0)).not.toThrow();
  });

  it('refuses a JEPA_RESAMPLE_ISA it does not know', async () => {
    process.env.JEPA_RESAMPLE_ISA = 'sse9';
    try {
      await expectRefusal(() => resampleU8Sync(job), 'BAD_ARGUMENT', /JEPA_RESAMPLE_ISA must be auto, scalar, avx2 or avx512, got 'sse9'/);
      await expectRefusal(() => resampleU8(job), 'BAD_ARGUMENT', /JEPA_RESAMPLE_ISA/);
      process.env.JEPA_RESAMPLE_ISA = 'auto';
      expect(resampleU8Sync(job)).toHaveLength(36);
    } finally {
      delete process.env.JEPA_RESAMPLE_ISA;
    }
  });
});

// A second, independent JS resampler (bicubic) with a switchable weight rounding: with Pillow's
// rounding it agrees with the native kernels, with truncated weights it must not. A weight off by one
// unit in 2^22 moves about one output byte in 10^4, which is why the cases above are not all tiny.
function jsResize(img: RgbImage, outW: number, outH: number, round: (w: number) => number): Uint8Array {
  const SCALE = 1 << 22;
  const coeffs = (inSize: number, outSize: number) => {
    const scale = inSize / outSize;
    const fs = Math.max(scale, 1);
    const inv = 1 / fs;
    const support = 2 * fs;
    const out: { start: number; w: number[] }[] = [];
    for (let xx = 0; xx < outSize; xx++) {
      const center = (xx + 0.5) * scale;
      const start = Math.max(0, Math.trunc(center - support + 0.5));
      const end = Math.min(inSize, Math.trunc(center + support + 0.5));
      const k: number[] = [];
      for (let x = start; x < end; x++) {
        const t = Math.abs((x - center + 0.5) * inv);
        k.push(t < 1 ? (1.5 * t - 2.5) * t * t + 1 : t < 2 ? (((t - 5) * t + 8) * t - 4) * -0.5 : 0);
      }
      const sum = k.reduce((a, b) => a + b, 0);
      out.push({ start, w: k.map((v) => round((sum !== 0 ? v / sum : v) * SCALE)) });
    }
    return out;
  };
  const clip = (s: number) => (s >= SCALE << 8 ? 255 : s <= 0 ? 0 : s >> 22);
  const hc = coeffs(img.width, outW);
  const vc = coeffs(img.height, outH);
  const mid = new Uint8Array(outW * img.height * 3);
  for (let y = 0; y < img.height; y++)
    for (let xx = 0; xx < outW; xx++)
      for (let c = 0; c < 3; c++) {
        let s = 1 << 21;
        for (let k = 0; k < hc[xx].w.length; k++) s = (s + img.data[(y * img.width + hc[xx].start + k) * 3 + c] * hc[xx].w[k]) | 0;
        mid[(y * outW + xx) * 3 + c] = clip(s);
      }
  const out = new Uint8Array(outW * outH * 3);
  for (let yy = 0; yy < outH; yy++)
    for (let i = 0; i < outW * 3; i++) {
      let s = 1 << 21;
      for (let k = 0; k < vc[yy].w.length; k++) s = (s + mid[(vc[yy].start + k) * outW * 3 + i] * vc[yy].w[k]) | 0;
      out[yy * outW * 3 + i] = clip(s);
    }
  return out;
}

describe('negative controls: the comparison can fail', () => {
  const img: RgbImage = { width: 93, height: 71, data: randomBytes(93 * 71 * 3, 93) };
  const job: ResampleJob = { src: img.data, width: 93, height: 71, channels: 3, outWidth: 40, outHeight: 57, filter: 'bicubic' };
  const pillowRound = (v: number) => (v < 0 ? Math.trunc(-0.5 + v) : Math.trunc(0.5 + v));

  it('an independent JS copy agrees with Pillow rounding and disagrees with truncated weights', () => {
    const big: RgbImage = { width: 200, height: 150, data: randomBytes(200 * 150 * 3, 200) };
    const native = resampleU8Sync({ src: big.data, width: 200, height: 150, channels: 3, outWidth: 341, outHeight: 256, filter: 'bicubic' });
    expectSameBytes(native, jsResize(big, 341, 256, pillowRound), 'faithful copy');
    const perturbed = jsResize(big, 341, 256, Math.trunc);
    expect(perturbed.filter((v, i) => v !== native[i]).length).toBeGreaterThan(0);
    expect(() => expectSameBytes(native, perturbed, 'perturbed copy')).toThrow(/perturbed copy: byte \d+ is/);
  });

  it('a crop one column off, the other filter or one flipped byte are all caught', () => {
    const full = resizeU8(img, 40, 57, 'bicubic');
    const crop = { left: 5, top: 9, width: 30, height: 40 };
    const got = resampleU8Sync({ ...job, crop });
    expectSameBytes(got, cropRgb(full, crop).data, 'true crop');
    expect(() => expectSameBytes(got, cropRgb(full, { ...crop, left: 6 }).data, 'shifted crop')).toThrow(/shifted crop/);
    expect(() => expectSameBytes(resampleU8Sync({ ...job, crop, filter: 'bilinear' }), cropRgb(full, crop).data, 'other filter')).toThrow(
      /other filter/,
    );
    const flipped = got.slice();
    flipped[777] ^= 1;
    expect(() => expectSameBytes(flipped, got, 'flipped')).toThrow(/flipped: byte 777/);
    const f = new Float32Array([1, 2, 3]);
    const g = f.slice();
    g[1] = 2.0000002;
    expect(() => expectSameBits(g, f, 'float')).toThrow(/float: byte/);
  });
});
