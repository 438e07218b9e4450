// Fast decode: a camera-size JPEG shrunk by libjpeg's DCT scaling while it decodes, by Pillow's
// draft rule, then the recipe at the full size's geometry. Close to the full decode, never equal.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { resizedSize } from '@jepa/preprocess';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { dctScaledSize, dctShrink } from '../src/decode/dct-shrink.js';
import { decodeImageStored } from '../src/decode/index.js';
import { ModelInput } from '../src/model-input.js';

const root = resolve(__dirname, '../../..');
const demo = loadModelSpec(join(root, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf'));
const imageFamily = { ...demo, family: 'ijepa' as const };
const png = join(root, 'fixtures/input/decode/graya8.png');
const dir = mkdtempSync(join(tmpdir(), 'jepa-fast-decode-'));
const big = join(dir, 'camera [1].jpg');
const turned = join(dir, 'camera-orient6.jpg');
const W = 3000;
const H = 2000;

const same = (a: Float32Array, b: Float32Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** A photo-like raster: smooth gradients, a few soft shapes and fine texture. */
function photo(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const disc = (u - 0.6) ** 2 + (v - 0.4) ** 2 < 0.04 ? 60 : 0;
      const texture = 12 * Math.sin(x * 0.37) * Math.sin(y * 0.29);
      const i = 3 * (y * width + x);
      px[i] = Math.max(0, Math.min(255, 40 + 150 * u + disc + texture));
      px[i + 1] = Math.max(0, Math.min(255, 200 - 120 * v + texture));
      px[i + 2] = Math.max(0, Math.min(255, 90 + 80 * Math.sin(6 * u) * v - disc / 2));
    }
  }
  return px;
}

beforeAll(async () => {
  const raw = photo(W, H);
  await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .toFile(big);
  await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .toFile(turned);
});

describe('dctShrink: Pillow 9.4 draft rule', () => {
  // Each row: Image.draft('RGB', target) on a JPEG of that size in Pillow 9.4 (decoderconfig's scale).
  const pillow: [number, number, number, number, number][] = [
    [3000, 2000, 219, 146, 8],
    [2400, 1600, 300, 200, 8],
    [2399, 1600, 300, 200, 4],
    [2400, 1599, 300, 200, 4],
    [1200, 800, 300, 200, 4],
    [1199, 800, 300, 200, 2],
    [600, 400, 300, 200, 2],
    [599, 400, 300, 200, 1],
    [435, 361, 2048, 2048, 1],
    [6000, 4000, 100, 100, 8],
    [4000, 3000, 146, 146, 8],
  ];
  it.each(pillow)('%ix%i for %ix%i shrinks by %i', (w, h, tw, th, s) => {
    expect(dctShrink(w, h, { width: tw, height: th })).toBe(s);
    const scaled = dctScaledSize(w, h, dctShrink(w, h, { width: tw, height: th }));
    expect(scaled.width).toBeGreaterThanOrEqual(Math.min(w, tw));
    expect(scaled.height).toBeGreaterThanOrEqual(Math.min(h, th));
  });

  it("libvips's raster is the floor of the size, where Pillow's is the ceiling", () => {
    expect(dctScaledSize(2399, 1600, 4)).toEqual({ width: 599, height: 400 });
    expect(dctScaledSize(3000, 2000, 8)).toEqual({ width: 375, height: 250 });
  });
});

describe('decodeImageStored with shrinkOnLoad', () => {
  const atLeast = (w: number, h: number) => resizedSize(w, h, new ModelInput(demo).recipe);

  it('decodes a 3000x2000 JPEG at the DCT scale the rule picks for the recipe (1/8: 375x250)', async () => {
    const bytes = readFileSync(big);
    const need = atLeast(W, H);
    expect(need).toEqual({ width: 219, height: 146 });
    const fast = await decodeImageStored(bytes, { shrinkOnLoad: { path: big, atLeast } });
    expect(fast.shrink).toBe(8);
    expect([fast.image.width, fast.image.height]).toEqual([375, 250]);
    expect(fast.image.data.length).toBe(375 * 250 * 3);
    expect(fast.full).toEqual({ width: W, height: H });
    const whole = await decodeImageStored(bytes);
    expect(whole.shrink).toBe(1);
    expect([whole.image.width, whole.image.height]).toEqual([W, H]);
  });

  it('takes the target upright and the rule in the stored orientation (EXIF 6)', async () => {
    const bytes = readFileSync(turned);
    // Upright the photo is 2000x3000; 700 upright columns are 700 stored rows: 2000 // 700 = 2, so 1/2.
    const asked: [number, number][] = [];
    const fast = await decodeImageStored(bytes, {
      shrinkOnLoad: {
        path: turned,
        atLeast: (w, h) => {
          asked.push([w, h]);
          return { width: 700, height: 10 };
        },
      },
    });
    expect(asked).toEqual([[H, W]]);
    expect(fast.orientation).toBe(6);
    expect(fast.shrink).toBe(2);
    expect([fast.image.width, fast.image.height]).toEqual([1500, 1000]);
    // Negative control: without the orientation the same target allows 1/4.
    const stored = await decodeImageStored(bytes, { exifOrient: false, shrinkOnLoad: { path: turned, atLeast: () => ({ width: 700, height: 10 }) } });
    expect(stored.shrink).toBe(4);
  });

  it('a file that changed since its bytes were read is refused, naming it', async () => {
    const bytes = readFileSync(big);
    const other = join(dir, 'swapped.jpg');
    await sharp(photo(1600, 1200), { raw: { width: 1600, height: 1200, channels: 3 } })
      .jpeg()
      .toFile(other);
    await expect(decodeImageStored(bytes, { shrinkOnLoad: { path: other, atLeast } })).rejects.toThrow(/swapped\.jpg changed while it was read/);
  });
});

/** The difference of two normalised tensors in 8-bit levels (times std · 255; the demo's std is at most 0.229), and their cosine. */
function distance(a: Float32Array, b: Float32Array): { max: number; mean: number; cosine: number } {
  let max = 0;
  let sum = 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    max = Math.max(max, d);
    sum += d;
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return { max: max * 0.229 * 255, mean: (sum / a.length) * 0.229 * 255, cosine: dot / Math.sqrt(na * nb) };
}

describe('ModelInput fastDecode', () => {
  // Measured: at most 3 levels, 0.28 on average, for both photos; a transposed or misplaced raster is off by tens.
  it('is close to the full decode (same shape, within a few 8-bit levels) but not bit-equal', async () => {
    for (const spec of [demo, imageFamily]) {
      const full = await new ModelInput(spec).image(big);
      const fast = await new ModelInput(spec, { fastDecode: true }).image(big);
      expect(fast.shape).toEqual(full.shape);
      expect(same(fast.data, full.data)).toBe(false);
      const d = distance(full.data, fast.data);
      expect(d.max).toBeLessThan(8);
      expect(d.mean).toBeLessThan(1);
      expect(d.cosine).toBeGreaterThan(0.999);
    }
  });

  it('without the flag a still is bit-equal to the full decode; bytes and PNG files decode in full even with it', async () => {
    const bytes = readFileSync(big);
    const full = await new ModelInput(imageFamily).image(big);
    const whole = await decodeImageStored(bytes);
    expect(same(full.data, (await new ModelInput(imageFamily).still(whole.image, whole.orientation)).data)).toBe(true);
    const fast = new ModelInput(imageFamily, { fastDecode: true });
    expect(same((await fast.imageBytes(bytes)).data, full.data)).toBe(true);
    expect(same((await fast.image(png)).data, (await new ModelInput(imageFamily).image(png)).data)).toBe(true);
  });

  it('an EXIF-6 photo through fast decode keeps the upright shape and stays close', async () => {
    const full = await new ModelInput(imageFamily).image(turned);
    const fast = await new ModelInput(imageFamily, { fastDecode: true }).image(turned);
    expect(fast.shape).toEqual(full.shape);
    expect(same(fast.data, full.data)).toBe(false);
    const d = distance(full.data, fast.data);
    expect(d.max).toBeLessThan(8);
    expect(d.mean).toBeLessThan(1);
    // Negative control: the photo as stored (not turned upright) is far from it.
    const stored = await new ModelInput(imageFamily, { fastDecode: true, exifOrient: false }).image(turned);
    expect(distance(full.data, stored.data).max).toBeGreaterThan(20);
  });

  it('refuses the js decoder', () => {
    expect(() => new ModelInput(demo, { fastDecode: true, decoder: 'js' })).toThrow(/fastDecode needs the native decoder/);
  });
});
