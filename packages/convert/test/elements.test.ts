import { describe, expect, it } from 'vitest';
import { halfToFloat32Bits } from '../src/index.js';
import { gatherStrided, isContiguous, viewExtent } from '../src/readers/strided-copy.js';

/** The value of a binary16 by its definition, as float32 bits (non-NaN inputs only). */
function halfByDefinition(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  const value =
    exponent === 0x1f ? sign * Infinity : exponent === 0 ? sign * mantissa * 2 ** -24 : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value, true);
  return view.getUint32(0, true);
}

describe('float16 to float32', () => {
  it('matches the definition for all 63488 non-NaN halves, signed zeros included', () => {
    let checked = 0;
    for (let h = 0; h < 0x10000; h++) {
      if (((h >> 10) & 0x1f) === 0x1f && (h & 0x3ff) !== 0) continue;
      expect(halfToFloat32Bits(h)).toBe(halfByDefinition(h));
      checked++;
    }
    expect(checked).toBe(0x10000 - 2 * 1023);
  });

  it('keeps NaN payloads and signs', () => {
    expect(halfToFloat32Bits(0x7e00)).toBe(0x7fc00000);
    expect(halfToFloat32Bits(0xfc01)).toBe(0xff802000);
  });
});

describe('strided gather', () => {
  function naive(src: number[], shape: number[], strides: number[]): number[] {
    const out: number[] = [];
    const walk = (d: number, base: number): void => {
      if (d === shape.length) {
        out.push(src[base]);
        return;
      }
      for (let i = 0; i < shape[d]; i++) walk(d + 1, base + i * strides[d]);
    };
    walk(0, 0);
    return out;
  }

  const cases: [number[], number[]][] = [
    [
      [3, 4],
      [1, 3],
    ],
    [
      [2, 3, 4],
      [1, 2, 6],
    ],
    [
      [4, 1, 2],
      [2, 100, 1],
    ],
    [[5], [3]],
    [
      [2, 2],
      [0, 1],
    ],
    [[], []],
  ];
  for (const [shape, strides] of cases) {
    for (const bytes of [1, 2, 4, 8]) {
      it(`shape [${shape}] strides [${strides}] with ${bytes}-byte elements`, () => {
        const extent = viewExtent(shape, strides);
        const src = new Uint8Array(extent * bytes);
        for (let i = 0; i < src.length; i++) src[i] = (i * 37 + 11) & 0xff;
        const elements = Array.from({ length: extent }, (_, i) => Buffer.from(src.subarray(i * bytes, (i + 1) * bytes)).toString('hex'));
        const out = gatherStrided(src, bytes, shape, strides);
        const got = Array.from({ length: out.length / bytes }, (_, i) => Buffer.from(out.subarray(i * bytes, (i + 1) * bytes)).toString('hex'));
        expect(got).toEqual(naive(elements as unknown as number[], shape, strides));
      });
    }
  }

  it('recognises C order, ignoring the stride of size-1 dimensions', () => {
    expect(isContiguous([2, 3], [3, 1])).toBe(true);
    expect(isContiguous([2, 1, 3], [3, 99, 1])).toBe(true);
    expect(isContiguous([3, 2], [1, 3])).toBe(false);
    expect(viewExtent([2, 0, 3], [0, 1, 1])).toBe(0);
  });
});
