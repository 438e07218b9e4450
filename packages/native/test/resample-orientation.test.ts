// EXIF orientation read through strides by the resampler, against orientRgb (exif_transpose's
// transposes) followed by the TypeScript resize, on every kernel and every pass combination.
import { describe, expect, it } from 'vitest';
import { orientRgb, resizeU8, type RgbImage } from '@jepa/preprocess';
import { resampleKernels, resampleU8Sync, type ResampleCrop } from '../src/index.js';
import { rng } from './helpers.js';

type Channels = 1 | 3 | 4;

function randomImage(width: number, height: number, channels: Channels, seed: number): Uint8Array {
  const r = rng(seed);
  return Uint8Array.from({ length: width * height * channels }, () => Math.floor(r() * 256));
}

function toRgb(src: Uint8Array, width: number, height: number, channels: Channels): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) for (let c = 0; c < 3; c++) data[p * 3 + c] = src[p * channels + (channels === 1 ? 0 : c)]!;
  return { width, height, data };
}

function cropRgb(img: RgbImage, c: ResampleCrop): Uint8Array {
  const out = new Uint8Array(c.width * c.height * 3);
  for (let y = 0; y < c.height; y++)
    out.set(img.data.subarray(((c.top + y) * img.width + c.left) * 3, ((c.top + y) * img.width + c.left + c.width) * 3), y * c.width * 3);
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b));

// Stored 37 x 23; upright sizes swap for 5..8. Each target exercises a different pass mix.
const targets = (w: number, h: number) => [
  { name: 'both passes', outW: 17, outH: 11 },
  { name: 'vertical only', outW: w, outH: 13 },
  { name: 'horizontal only', outW: 19, outH: h },
  { name: 'crop only', outW: w, outH: h },
];

describe('resampler orientation', () => {
  for (const isa of resampleKernels()) {
    it(`${isa}: orientations 1..8 equal orientRgb then resize, channels 1/3/4, every pass mix`, () => {
      const prev = process.env.JEPA_RESAMPLE_ISA;
      process.env.JEPA_RESAMPLE_ISA = isa;
      try {
        for (const channels of [1, 3, 4] as const) {
          const src = randomImage(37, 23, channels, 7 + channels);
          const rgb = toRgb(src, 37, 23, channels);
          for (let orientation = 1; orientation <= 8; orientation++) {
            const upright = orientRgb(rgb, orientation);
            for (const t of targets(upright.width, upright.height)) {
              const crop = { left: 1, top: 2, width: t.outW - 2, height: t.outH - 3 };
              for (const filter of ['bilinear', 'bicubic'] as const) {
                const want = cropRgb(resizeU8(upright, t.outW, t.outH, filter), crop);
                const got = resampleU8Sync({ src, width: 37, height: 23, channels, orientation, outWidth: t.outW, outHeight: t.outH, filter, crop });
                if (!same(got, want)) throw new Error(`${isa} c${channels} orientation ${orientation} ${t.name} ${filter} differs`);
              }
            }
          }
        }
      } finally {
        if (prev === undefined) delete process.env.JEPA_RESAMPLE_ISA;
        else process.env.JEPA_RESAMPLE_ISA = prev;
      }
    });
  }

  it('negative control: the mirrored orientation gives other bytes', () => {
    const src = randomImage(37, 23, 3, 1);
    const want = resizeU8(orientRgb({ width: 37, height: 23, data: src }, 6), 11, 17, 'bicubic').data;
    const got = resampleU8Sync({ src, width: 37, height: 23, channels: 3, orientation: 8, outWidth: 11, outHeight: 17, filter: 'bicubic' });
    expect(same(got, want)).toBe(false);
  });

  it('refuses an orientation outside 1..8, naming the field', () => {
    const src = randomImage(4, 4, 3, 2);
    expect(() => resampleU8Sync({ src, width: 4, height: 4, channels: 3, orientation: 9, outWidth: 2, outHeight: 2, filter: 'bilinear' })).toThrow(
      /job\.orientation/,
    );
  });
});
