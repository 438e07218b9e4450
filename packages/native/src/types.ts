import { addon } from './addon.js';
import type { TypeTraits } from './binding.js';
import { NativeError } from './errors.js';

let byName: Map<string, number> | undefined;

function table(): Map<string, number> {
  if (byName) return byName;
  const a = addon();
  byName = new Map();
  for (let id = 0; id < a.buildInfo().typeCount; id++) {
    const traits = a.typeTraits(id);
    if (traits.blockSize > 0 && traits.name) byName.set(traits.name, id);
  }
  return byName;
}

/** ggml's id for a type name as ggml spells it: `f32`, `f16`, `bf16`, `q8_0`, `q4_K`, `i32`, ... */
export function typeByName(name: string): number {
  const id = table().get(name);
  if (id === undefined) throw new NativeError('BAD_TYPE', `ggml has no type named '${name}'`);
  return id;
}

/** Block size, bytes per block and quantization facts, straight from ggml. */
export function typeTraits(type: number): TypeTraits {
  return addon().typeTraits(type);
}

/** Bytes of one row of `n` values of `type`. */
export function rowBytes(type: number, n: number): number {
  const t = typeTraits(type);
  if (n % t.blockSize !== 0) throw new NativeError('BAD_SHAPE', `${n} values are not a whole number of ${t.name} blocks`);
  return (n / t.blockSize) * t.typeSize;
}

/** Converts `nrows` rows of `nPerRow` floats to `type` with ggml's own quantizer, off the main thread. */
export function quantizeRows(type: number, src: Float32Array, nrows: number, nPerRow: number): Promise<Uint8Array> {
  return addon().quantize(type, src, nrows, nPerRow);
}

/** Converts `n` values of `type` back to floats with ggml's own code. */
export function dequantizeRow(type: number, bytes: ArrayBufferView, n: number): Float32Array {
  return addon().dequantize(type, bytes, n);
}
