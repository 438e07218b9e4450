import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeImage, exifOrientation, orientRgb, probeImage, readNpy } from '../src/index.js';
import { FIXTURES, fixturePath } from './fixtures.js';
import { craftPng } from './png-craft.js';

/** A 3x2 image whose pixel (x, y) is y * 3 + x in every channel. */
const labelled = { width: 3, height: 2, data: Uint8Array.from([0, 1, 2, 3, 4, 5].flatMap((v) => [v, v, v])) };

// Pillow 9.4: Image.fromarray(np.arange(6).reshape(2, 3)).transpose(method) for each orientation's method.
const PILLOW: Record<number, number[][]> = {
  1: [
    [0, 1, 2],
    [3, 4, 5],
  ],
  2: [
    [2, 1, 0],
    [5, 4, 3],
  ],
  3: [
    [5, 4, 3],
    [2, 1, 0],
  ],
  4: [
    [3, 4, 5],
    [0, 1, 2],
  ],
  5: [
    [0, 3],
    [1, 4],
    [2, 5],
  ],
  6: [
    [3, 0],
    [4, 1],
    [5, 2],
  ],
  7: [
    [5, 2],
    [4, 1],
    [3, 0],
  ],
  8: [
    [2, 5],
    [1, 4],
    [0, 3],
  ],
};

function labels(img: { width: number; height: number; data: Uint8Array }): number[][] {
  return Array.from({ length: img.height }, (_, y) => Array.from({ length: img.width }, (_, x) => img.data[(y * img.width + x) * 3]));
}

/** A TIFF-structured EXIF block with one IFD-0 entry. */
function exifBlock(little: boolean, tag: number, type: number, count: number, value: number): Uint8Array {
  const buf = new DataView(new ArrayBuffer(26));
  buf.setUint16(0, little ? 0x4949 : 0x4d4d);
  buf.setUint16(2, 42, little);
  buf.setUint32(4, 8, little);
  buf.setUint16(8, 1, little);
  buf.setUint16(10, tag, little);
  buf.setUint16(12, type, little);
  buf.setUint32(14, count, little);
  if (type === 3) buf.setUint16(18, value, little);
  else buf.setUint32(18, value, little);
  return new Uint8Array(buf.buffer);
}

function withPngChunk(png: Buffer, kind: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(kind, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  // After IHDR (8 + 25 bytes), before the pixel data.
  return Buffer.concat([png.subarray(0, 33), head, data, crc, png.subarray(33)]);
}

describe('orientRgb', () => {
  for (const [orientation, expected] of Object.entries(PILLOW)) {
    it(`orientation ${orientation} permutes pixels as Pillow's exif_transpose`, () => {
      expect(labels(orientRgb(labelled, Number(orientation)))).toEqual(expected);
    });
  }

  it('leaves the image alone for values exif_transpose ignores', () => {
    for (const o of [0, 1, 9, 2.5, -3]) expect(orientRgb(labelled, o)).toBe(labelled);
  });
});

describe('EXIF orientation in the header', () => {
  it('reads SHORT and LONG orientation in both byte orders', () => {
    for (const little of [true, false]) {
      expect(exifOrientation(exifBlock(little, 0x0112, 3, 1, 6))).toBe(6);
      expect(exifOrientation(exifBlock(little, 0x0112, 4, 1, 8))).toBe(8);
    }
  });

  it('gives 1 for what Pillow would not transpose: another tag, count 2, out of range, malformed', () => {
    expect(exifOrientation(exifBlock(true, 0x0110, 3, 1, 6))).toBe(1);
    expect(exifOrientation(exifBlock(true, 0x0112, 3, 2, 6))).toBe(1);
    expect(exifOrientation(exifBlock(false, 0x0112, 3, 1, 9))).toBe(1);
    expect(exifOrientation(exifBlock(true, 0x0112, 3, 1, 6).subarray(0, 20))).toBe(1);
    expect(exifOrientation(new TextEncoder().encode('not a tiff header'))).toBe(1);
  });

  it('finds it in a JPEG APP1 segment and a PNG eXIf chunk', () => {
    expect(probeImage(readFileSync(fixturePath('decode', 'exif_orientation6.jpg'))).orientation).toBe(6);
    expect(probeImage(readFileSync(fixturePath('decode', 'baseline420.jpg'))).orientation).toBe(1);
    const png = withPngChunk(craftPng(3, 2, true), 'eXIf', exifBlock(false, 0x0112, 3, 1, 5));
    expect(probeImage(png).orientation).toBe(5);
    expect([decodeImage(png).width, decodeImage(png).height]).toEqual([2, 3]);
    expect([decodeImage(png, { exifOrient: false }).width]).toEqual([3]);
  });
});

describe('the pure-JS decode against Pillow exif_transpose goldens (fixtures/input/decode)', () => {
  const dir = join(FIXTURES, '..', 'input', 'decode');
  const golden = (name: string) => readNpy(gunzipSync(readFileSync(join(dir, name))));
  for (let o = 1; o <= 8; o++) {
    it(`orient${o}.jpg: shape and pixels within the jpeg-js floor, orientation on and off`, () => {
      const bytes = readFileSync(join(dir, `orient${o}.jpg`));
      for (const [exifOrient, file] of [
        [true, `orient${o}.jpg.pil.npy.gz`],
        [false, o === 1 ? `orient1.jpg.pil.npy.gz` : `orient${o}.jpg.stored.pil.npy.gz`],
      ] as const) {
        const img = decodeImage(bytes, { exifOrient });
        const pil = golden(file);
        expect(pil.shape).toEqual([img.height, img.width, 3]);
        const ref = pil.data as Uint8Array;
        let max = 0;
        for (let i = 0; i < ref.length; i++) max = Math.max(max, Math.abs(ref[i] - img.data[i]));
        expect(max).toBeLessThanOrEqual(3);
      }
    });
  }

  it('orient6.png is identical to Pillow, upright and as stored', () => {
    const bytes = readFileSync(join(dir, 'orient6.png'));
    expect(Buffer.from(decodeImage(bytes).data).equals(Buffer.from(golden('orient6.png.pil.npy.gz').data as Uint8Array))).toBe(true);
    const stored = golden('orient6.png.stored.pil.npy.gz');
    expect(Buffer.from(decodeImage(bytes, { exifOrient: false }).data).equals(Buffer.from(stored.data as Uint8Array))).toBe(true);
  });
});
