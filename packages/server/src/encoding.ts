// Vectors out: JSON numbers, or little-endian float32 base64 (OpenAI's encoding_format "base64").
import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

/** float32 values as little-endian bytes in base64, as OpenAI's encoding_format "base64". */
export function float32Base64(values: Float32Array): string {
  if (LITTLE_ENDIAN) return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
  const out = Buffer.alloc(values.byteLength);
  for (const [i, v] of values.entries()) out.writeFloatLE(v, i * 4);
  return out.toString('base64');
}

/** Row-major values as nested arrays of `shape`. */
export function nested(values: Float32Array, shape: readonly number[]): unknown {
  if (shape.length <= 1) return Array.from(values);
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0]! }, (_, i) => nested(values.subarray(i * inner, (i + 1) * inner), shape.slice(1)));
}

export type EncodingFormat = 'float' | 'base64';

export function encodeValues(values: Float32Array, shape: readonly number[], format: EncodingFormat): unknown {
  return format === 'base64' ? float32Base64(values) : nested(values, shape);
}
