// f32 → f16 / bf16 bit conversions with ggml's rounding, so a converted (or forged) file holds the
// bytes ggml itself would have produced (ggml-impl.h: ggml_compute_fp32_to_fp16, ggml_compute_fp32_to_bf16).
// The one conversion of the project: @jepa/convert and the forge both use it.

/** IEEE round-to-nearest-even to binary16; overflow gives ±inf, NaN becomes the quiet 0x7e00 (sign kept), as ggml. */
export function f32BitsToF16(u: number): number {
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | (mant !== 0 ? 0x7e00 : 0x7c00);
  if (exp >= 113) {
    // normal binary16 range (before rounding); 143 and above is already past the largest finite half
    if (exp >= 143) return sign | 0x7c00;
    let h = ((exp - 112) << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++; // a carry into the exponent is the right answer
    return sign | h;
  }
  // subnormal binary16 (or zero): value = m · 2^(exp − 150), one half ulp = 2^−24
  const shift = 126 - exp;
  if (shift > 24) return sign;
  const m = mant | 0x800000;
  let h = m >>> shift;
  const rest = m & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  if (rest > halfway || (rest === halfway && (h & 1) === 1)) h++;
  return sign | h;
}

/** ggml's bf16: round-to-nearest-even on the top 16 bits, NaN forced quiet, subnormals kept. */
export function f32BitsToBf16(u: number): number {
  if ((u & 0x7fffffff) >>> 0 > 0x7f800000) return ((u >>> 16) | 64) & 0xffff;
  return ((u + (0x7fff + ((u >>> 16) & 1))) >>> 16) & 0xffff;
}

export type HalfKind = 'f16' | 'bf16';

/** Where a tensor holds NaN or ±Inf: the first such element, its value, and how many there are. */
export interface NonFinite {
  first: number;
  value: number;
  count: number;
}

const EXP_MASK = 0x7f800000;
const EXP_LSB = 0x00800000;

// (bits & EXP_MASK) + EXP_LSB reaches 2^31 exactly when the exponent is all ones (NaN or ±Inf), so an
// OR of it over a tensor has its sign bit set iff some element is non-finite: a branch-free pass,
// about as fast as reading the values at all; the slower counting pass runs only when it fires.
function nonFiniteBit(u: number): number {
  return ((u & EXP_MASK) + EXP_LSB) | 0;
}

function locateNonFinite(values: Float32Array): NonFinite | null {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  let first = -1;
  let count = 0;
  for (let i = 0; i < bits.length; i++) {
    if ((bits[i]! & EXP_MASK) === EXP_MASK && count++ === 0) first = i;
  }
  return count === 0 ? null : { first, value: values[first]!, count };
}

/** The non-finite elements of a tensor, or null when all are finite. */
export function scanNonFinite(values: Float32Array): NonFinite | null {
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length);
  let any = 0;
  for (let i = 0; i < bits.length; i++) any |= nonFiniteBit(bits[i]!);
  return any < 0 ? locateNonFinite(values) : null;
}

/** encodeHalf with the non-finite test folded into the same loop. */
export function encodeHalfScanned(values: Float32Array, kind: HalfKind): { out: Uint16Array; nonFinite: NonFinite | null } {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  const convert = kind === 'f16' ? f32BitsToF16 : f32BitsToBf16;
  let any = 0;
  for (let i = 0; i < bits.length; i++) {
    const u = bits[i]!;
    any |= nonFiniteBit(u);
    out[i] = convert(u);
  }
  return { out, nonFinite: any < 0 ? locateNonFinite(values) : null };
}

export function encodeHalf(values: Float32Array, kind: HalfKind): Uint16Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  const convert = kind === 'f16' ? f32BitsToF16 : f32BitsToBf16;
  for (let i = 0; i < bits.length; i++) out[i] = convert(bits[i]!);
  return out;
}
