import { GgufError } from '../errors.js';
import { GgmlType, ggmlTypeInfo } from '../ggml-types.js';
import type { GgufTensorInfo } from '../gguf/header.js';
import type { TensorSpec } from '../schema/tensors.js';

const MATMUL_PLAIN = new Set<number>([GgmlType.F32, GgmlType.F16, GgmlType.BF16]);

function typeName(type: number): string {
  return ggmlTypeInfo(type).name;
}

/** Every tensor in the file must be one the schema names; matmul weights f32/f16/bf16/quantized, the rest f32. */
export function checkDtypes(tensors: readonly GgufTensorInfo[], expected: ReadonlyMap<string, TensorSpec>): void {
  for (const t of tensors) {
    const spec = expected.get(t.name);
    if (spec === undefined) {
      throw new GgufError('JEPA_TENSOR_UNEXPECTED', `tensor '${t.name}' is not part of this model's schema`);
    }
    if (spec.role === 'f32' && t.type !== GgmlType.F32) {
      throw new GgufError('JEPA_TENSOR_DTYPE', `tensor '${t.name}' is ${typeName(t.type)}; the graph adds or multiplies it, so it must be f32`);
    }
    if (spec.role === 'matmul' && !MATMUL_PLAIN.has(t.type) && !ggmlTypeInfo(t.type).isQuantized) {
      throw new GgufError('JEPA_TENSOR_DTYPE', `tensor '${t.name}' is ${typeName(t.type)}; a matmul weight must be f32, f16, bf16 or quantized`);
    }
  }
}

export function checkShapes(tensors: readonly GgufTensorInfo[], expected: ReadonlyMap<string, TensorSpec>): void {
  for (const t of tensors) {
    const spec = expected.get(t.name) as TensorSpec;
    const same = spec.shape.length === t.shape.length && spec.shape.every((d, i) => d === t.shape[i]);
    if (!same) {
      throw new GgufError(
        'JEPA_TENSOR_SHAPE',
        `tensor '${t.name}' has shape [${t.shape.join(', ')}], the hparams require [${spec.shape.join(', ')}]`,
      );
    }
  }
}

export function checkRequired(tensors: ReadonlyMap<string, GgufTensorInfo>, expected: readonly TensorSpec[]): void {
  for (const spec of expected) {
    if (!tensors.has(spec.name)) {
      throw new GgufError('JEPA_TENSOR_MISSING', `tensor '${spec.name}' [${spec.shape.join(', ')}] is missing`);
    }
  }
}
