import type { TensorDType, TypedArray } from './dtypes.js';

/** IEEE binary16 bits to the bits of the float32 with the same value (exact, NaN payloads kept). */
export function halfToFloat32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exponent = (h >> 10) & 0x1f;
  let mantissa = h & 0x3ff;
  if (exponent === 0x1f) return (sign | 0x7f800000 | (mantissa << 13)) >>> 0;
  if (exponent !== 0) return (sign | ((exponent + 112) << 23) | (mantissa << 13)) >>> 0;
  if (mantissa === 0) return sign >>> 0;
  let biased = 113;
  while ((mantissa & 0x400) === 0) {
    mantissa <<= 1;
    biased--;
  }
  return (sign | (biased << 23) | ((mantissa & 0x3ff) << 13)) >>> 0;
}

/** Converts read() output to float32 as torch's `.to(torch.float32)` does (exact for f16/bf16). */
export function toFloat32(dtype: TensorDType, data: TypedArray): Float32Array {
  switch (dtype) {
    case 'f32':
      return data as Float32Array;
    case 'f16': {
      const src = data as Uint16Array;
      const out = new Float32Array(src.length);
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < src.length; i++) bits[i] = halfToFloat32Bits(src[i]);
      return out;
    }
    case 'bf16': {
      const src = data as Uint16Array;
      const out = new Float32Array(src.length);
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < src.length; i++) bits[i] = src[i] << 16;
      return out;
    }
    case 'i64':
    case 'u64': {
      const src = data as BigInt64Array | BigUint64Array;
      const out = new Float32Array(src.length);
      for (let i = 0; i < src.length; i++) out[i] = Number(src[i]);
      return out;
    }
    default:
      return Float32Array.from(data as ArrayLike<number>);
  }
}
