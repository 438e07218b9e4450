import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { encodeHalf, encodeHalfScanned, f32BitsToBf16, f32BitsToF16, scanNonFinite } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
/** numpy 1.24 float32 → float16 on edge cases (ties, subnormals, overflow, ±inf) and 200 random magnitudes. */
const numpy = JSON.parse(readFileSync(join(here, 'data', 'f16-numpy.json'), 'utf8')) as { f32_bits: number[]; f16_bits: number[] };

function bitsOf(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}

describe('f32 → f16 (ggml_compute_fp32_to_fp16)', () => {
  it('equals numpy on every non-NaN case', () => {
    const mismatches = numpy.f32_bits
      .map((u, i) => ({ u, got: f32BitsToF16(u), want: numpy.f16_bits[i]! }))
      .filter((c) => c.got !== c.want)
      .map((c) => `0x${c.u.toString(16)} → 0x${c.got.toString(16)} (numpy 0x${c.want.toString(16)})`);
    expect(mismatches).toEqual([]);
    expect(numpy.f32_bits.length).toBeGreaterThan(200);
  });

  it('rounds ties to even, overflows to inf and keeps subnormals', () => {
    expect(f32BitsToF16(bitsOf(1 + 2 ** -11))).toBe(0x3c00); // tie, even stays
    expect(f32BitsToF16(bitsOf(1 + 3 * 2 ** -11))).toBe(0x3c02); // tie, odd rounds up
    expect(f32BitsToF16(bitsOf(65520))).toBe(0x7c00);
    expect(f32BitsToF16(bitsOf(-65504))).toBe(0xfbff);
    expect(f32BitsToF16(bitsOf(2 ** -24))).toBe(0x0001);
    expect(f32BitsToF16(bitsOf(2 ** -25))).toBe(0x0000); // tie with 0, even
    expect(f32BitsToF16(bitsOf(1.5 * 2 ** -25))).toBe(0x0001);
    expect(f32BitsToF16(bitsOf(2 ** -14 * (1 - 2 ** -12)))).toBe(0x0400); // rounds up into the normals
    expect(f32BitsToF16(bitsOf(-0))).toBe(0x8000);
  });

  it('makes every NaN the quiet 0x7e00 with its sign, as ggml (numpy keeps payload bits)', () => {
    expect(f32BitsToF16(0x7fc00000)).toBe(0x7e00);
    expect(f32BitsToF16(0x7f800001)).toBe(0x7e00);
    expect(f32BitsToF16(0xffc00001)).toBe(0xfe00);
  });
});

describe('f32 → bf16 (ggml_compute_fp32_to_bf16)', () => {
  it('rounds to nearest even on the top half, quiets NaN, keeps subnormals and inf', () => {
    expect(f32BitsToBf16(0x3f808000)).toBe(0x3f80); // tie, even stays
    expect(f32BitsToBf16(0x3f818000)).toBe(0x3f82); // tie, odd rounds up
    expect(f32BitsToBf16(0x3f808001)).toBe(0x3f81);
    expect(f32BitsToBf16(0x7f7fffff)).toBe(0x7f80); // largest float rounds to inf
    expect(f32BitsToBf16(0xff800000)).toBe(0xff80);
    expect(f32BitsToBf16(0x7f800001)).toBe(0x7fc0);
    expect(f32BitsToBf16(0x00018000)).toBe(0x0002); // subnormal tie → even (odd 1 rounds up)
  });

  it('encodes arrays element by element', () => {
    const values = new Float32Array([1, -2, 0.5, 65504, 1e-8]);
    expect([...encodeHalf(values, 'f16')]).toEqual([0x3c00, 0xc000, 0x3800, 0x7bff, f32BitsToF16(bitsOf(1e-8))]);
    expect([...encodeHalf(values, 'bf16')]).toEqual([...values].map((v) => f32BitsToBf16(bitsOf(v))));
  });
});

describe('the non-finite scan', () => {
  const fromBits = (bits: number[]) => new Float32Array(new Uint32Array(bits).buffer);

  it('finds NaN (any payload, either sign) and ±Inf, and nothing else', () => {
    const finite = fromBits([0, 0x80000000, 1, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000]);
    expect(scanNonFinite(finite)).toBeNull();
    expect(encodeHalfScanned(finite, 'f16').nonFinite).toBeNull();
    const bad = fromBits([0x3f800000, 0x7f800001, 0, 0xff800000, 0x7fc00000, 0xffffffff, 0x7f800000]);
    expect(scanNonFinite(bad)).toMatchObject({ first: 1, count: 5 });
    expect(Number.isNaN(scanNonFinite(bad)!.value)).toBe(true);
    expect(scanNonFinite(fromBits([1, 0xff800000]))).toEqual({ first: 1, value: Number.NEGATIVE_INFINITY, count: 1 });
    for (const kind of ['f16', 'bf16'] as const) {
      const { out, nonFinite } = encodeHalfScanned(bad, kind);
      expect(nonFinite).toMatchObject({ first: 1, count: 5 });
      expect([...out]).toEqual([...encodeHalf(bad, kind)]);
    }
  });

  it('reads a view at an offset, not its whole buffer', () => {
    const buffer = fromBits([0x7fc00000, 0x3f800000, 0x3f800000, 0x7f800000]);
    expect(scanNonFinite(buffer.subarray(1, 3))).toBeNull();
    expect(scanNonFinite(buffer.subarray(1))).toEqual({ first: 2, value: Number.POSITIVE_INFINITY, count: 1 });
  });
});
