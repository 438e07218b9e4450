import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PreprocessError, resizeU8, type ResampleFilter } from '../src/index.js';
import { firstDifference, proceduralImage, readFixture, readJsonFixture } from './fixtures.js';

interface RandomCase {
  in: [number, number];
  out: [number, number];
  filter: ResampleFilter;
  inOffset: number;
  outOffset: number;
}
interface ProceduralCase {
  in: [number, number];
  out: [number, number];
  filter: ResampleFilter;
  sha256: string;
}

const index = readJsonFixture<{ cases: RandomCase[]; procedural: ProceduralCase[] }>('resize', 'cases.json');
const blob = readFixture('resize', 'cases.bin.gz');

describe('resizeU8 against Pillow 9.4 Image.resize', () => {
  it(`matches all ${index.cases.length} random cases byte for byte`, () => {
    expect(index.cases.length).toBeGreaterThanOrEqual(200);
    const failures: string[] = [];
    for (const [i, c] of index.cases.entries()) {
      const [inW, inH] = c.in;
      const [outW, outH] = c.out;
      const input = blob.subarray(c.inOffset, c.inOffset + inW * inH * 3);
      const expected = blob.subarray(c.outOffset, c.outOffset + outW * outH * 3);
      const got = resizeU8({ width: inW, height: inH, data: input }, outW, outH, c.filter);
      expect(got.width).toBe(outW);
      expect(got.height).toBe(outH);
      const diff = firstDifference(got.data, expected);
      if (diff !== 'identical') failures.push(`case ${i} ${inW}x${inH} -> ${outW}x${outH} ${c.filter}: ${diff}`);
    }
    expect(failures).toEqual([]);
  });

  it('covers 1-pixel sides, both filters, up- and down-scaling and single-pass cases', () => {
    const has = (p: (c: RandomCase) => boolean) => index.cases.some(p);
    expect(has((c) => c.in[0] === 1)).toBe(true);
    expect(has((c) => c.in[1] === 1)).toBe(true);
    expect(has((c) => c.out[0] === 1 || c.out[1] === 1)).toBe(true);
    expect(has((c) => c.filter === 'bicubic') && has((c) => c.filter === 'bilinear')).toBe(true);
    expect(has((c) => c.out[0] > c.in[0] && c.out[1] > c.in[1])).toBe(true);
    expect(has((c) => c.out[0] < c.in[0] && c.out[1] < c.in[1])).toBe(true);
    expect(has((c) => c.out[1] === c.in[1])).toBe(true);
    expect(has((c) => c.out[0] === c.in[0])).toBe(true);
  });

  for (const c of index.procedural) {
    it(`matches procedural ${c.in[0]}x${c.in[1]} -> ${c.out[0]}x${c.out[1]} ${c.filter}`, () => {
      const [inW, inH] = c.in;
      const got = resizeU8({ width: inW, height: inH, data: proceduralImage(inW, inH) }, c.out[0], c.out[1], c.filter);
      expect(createHash('sha256').update(got.data).digest('hex')).toBe(c.sha256);
    });
  }

  it('negative control: a perturbed input corner changes the digest', () => {
    const c = index.procedural[0];
    const data = proceduralImage(c.in[0], c.in[1]);
    for (let i = 0; i < 8 * 3; i++) data[i] ^= 0x80;
    const got = resizeU8({ width: c.in[0], height: c.in[1], data }, c.out[0], c.out[1], c.filter);
    expect(createHash('sha256').update(got.data).digest('hex')).not.toBe(c.sha256);
    const otherFilter = c.filter === 'bilinear' ? 'bicubic' : 'bilinear';
    const clean = { width: c.in[0], height: c.in[1], data: proceduralImage(c.in[0], c.in[1]) };
    const wrong = resizeU8(clean, c.out[0], c.out[1], otherFilter);
    expect(createHash('sha256').update(wrong.data).digest('hex')).not.toBe(c.sha256);
  });

  it('returns a copy for an identity resize and refuses bad arguments with typed errors', () => {
    const img = { width: 2, height: 1, data: new Uint8Array([1, 2, 3, 4, 5, 6]) };
    const same = resizeU8(img, 2, 1, 'bilinear');
    expect(same.data).toEqual(img.data);
    expect(same.data).not.toBe(img.data);
    expect(() => resizeU8(img, 0, 1, 'bilinear')).toThrow(PreprocessError);
    expect(() => resizeU8({ ...img, data: new Uint8Array(5) }, 1, 1, 'bilinear')).toThrow(/needs 6 bytes/);
    expect(() => resizeU8(img, 1, 1, 'lanczos' as ResampleFilter)).toThrow(PreprocessError);
  });
});
