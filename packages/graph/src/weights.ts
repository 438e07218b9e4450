// The model's tensors as ggml tensors: bound zero-copy to the mapped file on the CPU, uploaded
// into one device buffer elsewhere.
import { createContext, mapFile, type Backend, type Buffer, type Context, type Mapping, type Tensor } from '@jepa/native';
import type { ModelSpec } from '@jepa/gguf';
import { GraphError } from './errors.js';

export interface Weights extends Disposable {
  readonly ctx: Context;
  /** The named tensor; a GraphError names a tensor the file does not have. */
  get(name: string): Tensor;
  has(name: string): boolean;
  dispose(): void;
}

export function loadWeights(spec: ModelSpec, path: string, backend: Backend): Weights {
  const ctx = createContext(spec.tensors.size + 1);
  const tensors = new Map<string, Tensor>();
  for (const [name, info] of spec.tensors) {
    const t = ctx.newTensor(info.type, [...info.shape]);
    t.name = name.length < 64 ? name : name.slice(0, 63);
    tensors.set(name, t);
  }
  const mapping: Mapping = mapFile(path);
  let buffer: Buffer | undefined;
  try {
    const dataOffset = spec.header.dataOffset;
    if (backend.isCpu && spec.tensors.size > 0) {
      buffer = mapping.toBuffer(dataOffset, mapping.length - dataOffset);
      for (const [name, info] of spec.tensors) tensors.get(name)!.bind(buffer, info.offset - dataOffset);
    } else if (spec.tensors.size > 0) {
      buffer = ctx.allocate(backend);
      for (const [name, info] of spec.tensors) tensors.get(name)!.loadFrom(mapping, info.offset);
      mapping.dispose();
    }
  } catch (err) {
    mapping.dispose();
    ctx.dispose();
    throw err;
  }
  const dispose = () => {
    buffer?.dispose();
    mapping.dispose();
    ctx.dispose();
  };
  return {
    ctx,
    get(name) {
      const t = tensors.get(name);
      if (!t) throw new GraphError(`the model has no tensor '${name}'`, 'MISSING_TENSOR');
      return t;
    },
    has: (name) => tensors.has(name),
    dispose,
    [Symbol.dispose]: dispose,
  };
}
