import { DTYPE_BYTES, elementCount, viewAs, type TensorDType, type TypedArray } from './dtypes.js';
import { toFloat32 } from './to-float32.js';

/** Where a tensor's bytes live, for diagnostics and for writers that copy ranges. */
export type TensorLocation =
  | { kind: 'safetensors'; file: string; byteOffset: number }
  | { kind: 'torch'; file: string; storageKey: string; elementOffset: number; strides: readonly number[] };

/** A lazy tensor: nothing is read until `read()`; each read fetches only this tensor's bytes. */
export interface TensorRef {
  readonly name: string;
  readonly dtype: TensorDType;
  readonly shape: readonly number[];
  /** Size of the contiguous C-order data that `read()` returns. */
  readonly byteLength: number;
  readonly location: TensorLocation;
  /** The elements in contiguous C order, as the dtype's raw typed array. */
  read(): Promise<TypedArray>;
  readAsFloat32(): Promise<Float32Array>;
}

export function createTensorRef(spec: {
  name: string;
  dtype: TensorDType;
  shape: readonly number[];
  location: TensorLocation;
  /** Resolves to exactly `byteLength` bytes in C order, in a buffer starting at offset 0. */
  readContiguous: () => Promise<Uint8Array>;
}): TensorRef {
  const { dtype, readContiguous } = spec;
  const shape = Object.freeze([...spec.shape]);
  const byteLength = elementCount(shape, spec.name) * DTYPE_BYTES[dtype];
  const read = async (): Promise<TypedArray> => viewAs(dtype, await readContiguous());
  return {
    name: spec.name,
    dtype,
    shape,
    byteLength,
    location: spec.location,
    read,
    readAsFloat32: async () => toFloat32(dtype, await read()),
  };
}

/** The same tensor under another name (the bytes are shared, nothing is read). */
export function renameTensor(ref: TensorRef, name: string): TensorRef {
  return name === ref.name ? ref : { ...ref, name };
}

export function isTensorRef(value: unknown): value is TensorRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TensorRef).read === 'function' &&
    typeof (value as TensorRef).dtype === 'string' &&
    Array.isArray((value as TensorRef).shape)
  );
}
