// A classifier's Linear applied in float64 in the test, from the weights as the GGUF stores them: an
// independent check of what the engine's head reads.
import { readFileSync } from 'node:fs';

interface StoredTensor {
  type: number;
  shape: readonly number[];
  offset: number;
}

function f32Tensor(file: Buffer, t: StoredTensor, name: string): Float32Array {
  if (t.type !== 0) throw new Error(`${name}: type ${t.type}, this check reads F32 weights only`);
  const n = t.shape.reduce((a, b) => a * b, 1);
  return new Float32Array(file.buffer.slice(file.byteOffset + t.offset, file.byteOffset + t.offset + 4 * n));
}

/** logits = W · pooled + b for `head.cls` of the GGUF at `path` (W stored [D, nClasses], ggml order). */
export function classifierLogits(path: string, tensors: ReadonlyMap<string, StoredTensor>, pooled: ArrayLike<number>): Float64Array {
  const file = readFileSync(path);
  const w = tensors.get('head.cls.weight');
  const b = tensors.get('head.cls.bias');
  if (!w || !b) throw new Error(`${path} has no head.cls`);
  const [D, classes] = w.shape as [number, number];
  if (pooled.length !== D) throw new Error(`the pooled vector is ${pooled.length} wide, head.cls reads ${D}`);
  const W = f32Tensor(file, w, 'head.cls.weight');
  const bias = f32Tensor(file, b, 'head.cls.bias');
  const logits = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    let s = bias[c]!;
    for (let d = 0; d < D; d++) s += W[c * D + d]! * pooled[d]!;
    logits[c] = s;
  }
  return logits;
}
