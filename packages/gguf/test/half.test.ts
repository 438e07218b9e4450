// The one f32 → f16 conversion (half.ts), checked against an independent reference: the nearest of
// all finite halves by value, ties to the even bit pattern, past the top → ±Inf. And the forge, which
// writes f16 weights and q8_0 scales, converts with it.
import { describe, expect, it } from 'vitest';
import { GgmlType } from '../src/ggml-types.js';
import { readGgufFromBuffer } from '../src/gguf/reader.js';
import { forgeModelBytes } from '../src/forge/forge.js';
import { seededF32 } from '../src/forge/tensor-data.js';
import { encodeHalf, f32BitsToF16 } from '../src/index.js';

const bitsOf = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0]!;
const f16 = (x: number) => f32BitsToF16(bitsOf(x));

/** The exact value of a half's bits (no rounding: every half is a double). */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : Number.NaN;
  return sign * (exp === 0 ? mant * 2 ** -24 : (1024 + mant) * 2 ** (exp - 25));
}

/** The finite non-negative halves 0x0000..0x7bff, whose values rise with their bits. */
const POSITIVE = Array.from({ length: 0x7c00 }, (_, h) => halfValue(h));
/** Halfway between 65504 and the next would-be half, 65536: from here on, round-to-nearest-even gives Inf. */
const OVERFLOW = 65520;

/** Nearest half by search, ties to even: an answer that shares no code with half.ts. */
function referenceF16(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= OVERFLOW) return sign | 0x7c00;
  let lo = 0;
  let hi = POSITIVE.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (POSITIVE[mid]! <= a) lo = mid;
    else hi = mid;
  }
  const below = a - POSITIVE[lo]!;
  const above = POSITIVE[hi]! - a;
  const h = below < above ? lo : above < below ? hi : lo % 2 === 0 ? lo : hi;
  return sign | h;
}

describe('f32 → f16', () => {
  it('gives the hand-checked bits of the cases a truncating conversion gets wrong', () => {
    expect(f16(1e-6)).toBe(0x0011); // subnormal: 1e-6 / 2^-24 = 16.78
    expect(f16(5.96e-8)).toBe(0x0001); // the smallest subnormal, not 0
    expect(f16(3 * 2 ** -25)).toBe(0x0002); // subnormal tie between 1 and 2: even
    expect(f16(2 ** -25)).toBe(0x0000); // tie with 0: even
    expect(f16(1.9999)).toBe(0x4000); // the rounding carries into the exponent: 2, not 1
    expect(f16(65504)).toBe(0x7bff);
    expect(f16(65519.99)).toBe(0x7bff);
    expect(f16(65520)).toBe(0x7c00);
    expect(f16(-70000)).toBe(0xfc00);
    expect(f16(Number.NaN)).toBe(0x7e00);
    expect(f16(-0)).toBe(0x8000);
    expect(f16(1 + 2 ** -11)).toBe(0x3c00); // tie, the even 1.0 stays
    expect(f16(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie, the odd 1 + 2^-10 rounds up
    expect(f16(1 + 2 ** -11 + 2 ** -20)).toBe(0x3c01); // just past the tie
  });

  it('agrees with the nearest-half search at every midpoint between halves, one f32 ulp either side, and at every half', () => {
    const mismatches: string[] = [];
    const check = (x: number) => {
      const u = bitsOf(x);
      const got = f32BitsToF16(u);
      const want = referenceF16(new Float32Array([x])[0]!);
      if (got !== want) mismatches.push(`${x} (0x${u.toString(16)}) → 0x${got.toString(16)}, want 0x${want.toString(16)}`);
    };
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    for (let h = 0; h < POSITIVE.length; h++) {
      const next = h + 1 < POSITIVE.length ? POSITIVE[h + 1]! : 65536;
      for (const x of [POSITIVE[h]!, (POSITIVE[h]! + next) / 2]) {
        f32[0] = x;
        const at = u32[0]!;
        for (const step of at === 0 ? [0, 1] : [-1, 0, 1]) {
          u32[0] = at + step;
          check(f32[0]);
          check(-f32[0]);
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it('agrees with the search on random f32 bit patterns of every magnitude', () => {
    const u32 = new Uint32Array(200_000);
    let s = 12345;
    for (let i = 0; i < u32.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      u32[i] = (s ^ (s >>> 15) ^ Math.imul(i, 0x9e3779b9)) >>> 0;
    }
    const values = new Float32Array(u32.buffer);
    const got = encodeHalf(values, 'f16');
    // NaN keeps its sign bit, which a JS number does not carry: those are the hand-checked case's
    const bad = Array.from(values.keys()).filter((i) => !Number.isNaN(values[i]) && got[i] !== referenceF16(values[i]!));
    expect(bad.slice(0, 10).map((i) => `${values[i]} → 0x${got[i]!.toString(16)}, want 0x${referenceF16(values[i]!).toString(16)}`)).toEqual([]);
  });
});

describe('the forge converts with it', () => {
  it('every forged f16 weight is the nearest half of its seeded f32 value', () => {
    const forged = forgeModelBytes('hfvit', { matmulType: GgmlType.F16 });
    const header = readGgufFromBuffer(forged.bytes);
    const f16Tensors = header.tensors.filter((t) => t.type === GgmlType.F16);
    expect(f16Tensors.length).toBeGreaterThan(0);
    for (const t of f16Tensors) {
      const count = t.shape.reduce((a, b) => a * b, 1);
      const stored = new Uint16Array(forged.bytes.slice(t.offset, t.offset + t.nbytes).buffer);
      const want = Uint16Array.from(seededF32(1, t.name, count), referenceF16);
      expect(Buffer.from(stored.buffer).equals(Buffer.from(want.buffer)), t.name).toBe(true);
    }
  });

  it("every forged q8_0 block's scale is the nearest half of amax / 127", () => {
    const forged = forgeModelBytes('vjepa2', { matmulType: GgmlType.Q8_0 });
    const q8 = readGgufFromBuffer(forged.bytes).tensors.filter((x) => x.type === GgmlType.Q8_0);
    expect(q8.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const t of q8) {
      const count = t.shape.reduce((a, b) => a * b, 1);
      const values = seededF32(1, t.name, count);
      const view = new DataView(forged.bytes.buffer, forged.bytes.byteOffset + t.offset, t.nbytes);
      for (let b = 0; b < count / 32; b++) {
        const amax = values.subarray(b * 32, b * 32 + 32).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        if (view.getUint16(b * 34, true) !== referenceF16(Math.fround(amax / 127))) wrong.push(`${t.name} block ${b}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
