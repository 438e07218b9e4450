import { ConvertError } from '../errors.js';

/** Element types the readers understand; names follow the GGUF side of the project. */
export type TensorDType = 'f64' | 'f32' | 'f16' | 'bf16' | 'i64' | 'i32' | 'i16' | 'i8' | 'u64' | 'u32' | 'u16' | 'u8' | 'bool';

/** What `TensorRef.read()` returns for each dtype: the raw element bits, little-endian. */
export type TensorData = {
  f64: Float64Array;
  f32: Float32Array;
  f16: Uint16Array;
  bf16: Uint16Array;
  i64: BigInt64Array;
  i32: Int32Array;
  i16: Int16Array;
  i8: Int8Array;
  u64: BigUint64Array;
  u32: Uint32Array;
  u16: Uint16Array;
  u8: Uint8Array;
  bool: Uint8Array;
};

export type TypedArray = TensorData[TensorDType];

export const DTYPE_BYTES: Readonly<Record<TensorDType, number>> = {
  f64: 8,
  f32: 4,
  f16: 2,
  bf16: 2,
  i64: 8,
  i32: 4,
  i16: 2,
  i8: 1,
  u64: 8,
  u32: 4,
  u16: 2,
  u8: 1,
  bool: 1,
};

/** Views bytes (a fresh buffer starting at offset 0, so aligned) as the dtype's typed array. */
export function viewAs(dtype: TensorDType, bytes: Uint8Array): TypedArray {
  const { buffer, byteOffset, byteLength } = bytes;
  const count = byteLength / DTYPE_BYTES[dtype];
  switch (dtype) {
    case 'f64':
      return new Float64Array(buffer, byteOffset, count);
    case 'f32':
      return new Float32Array(buffer, byteOffset, count);
    case 'f16':
    case 'bf16':
    case 'u16':
      return new Uint16Array(buffer, byteOffset, count);
    case 'i64':
      return new BigInt64Array(buffer, byteOffset, count);
    case 'i32':
      return new Int32Array(buffer, byteOffset, count);
    case 'i16':
      return new Int16Array(buffer, byteOffset, count);
    case 'i8':
      return new Int8Array(buffer, byteOffset, count);
    case 'u64':
      return new BigUint64Array(buffer, byteOffset, count);
    case 'u32':
      return new Uint32Array(buffer, byteOffset, count);
    case 'u8':
    case 'bool':
      return new Uint8Array(buffer, byteOffset, count);
  }
}

/** Element count of a shape, refusing negative, fractional or unsafe sizes. */
export function elementCount(shape: readonly number[], what: string): number {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0) {
      throw new ConvertError('CONVERT_BAD_SHAPE', `${what}: dimension ${String(d)} in shape [${shape.join(', ')}] is not a non-negative integer`);
    }
    if (!Number.isSafeInteger(d))
      throw new ConvertError('CONVERT_BAD_SHAPE', `${what}: dimension ${d} in shape [${shape.join(', ')}] exceeds 2^53 - 1, the largest size read`);
    n *= d;
    if (!Number.isSafeInteger(n)) throw new ConvertError('CONVERT_BAD_SHAPE', `${what}: shape [${shape.join(', ')}] has too many elements`);
  }
  return n;
}

// Node 20 cannot allocate one buffer beyond this many bytes.
export const MAX_TENSOR_BYTES = 2 ** 32;

export function assertReadableSize(byteLength: number, what: string): void {
  if (byteLength > MAX_TENSOR_BYTES) {
    throw new ConvertError('CONVERT_TENSOR_TOO_LARGE', `${what}: ${byteLength} bytes exceed the ${MAX_TENSOR_BYTES}-byte limit of one read`);
  }
}
