import type { TypedArray } from './dtypes.js';
import type { TensorRef } from './tensor-ref.js';

/**
 * Reads tensors one after another: only one tensor's data is held at a time, unless the
 * caller keeps it.
 */
export async function* streamTensors(
  tensors: ReadonlyMap<string, TensorRef> | Iterable<TensorRef>,
): AsyncGenerator<{ ref: TensorRef; data: TypedArray }> {
  const refs = tensors instanceof Map ? tensors.values() : (tensors as Iterable<TensorRef>);
  for (const ref of refs) yield { ref, data: await ref.read() };
}
