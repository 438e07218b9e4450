import { GgufError } from '../errors.js';
import { GgmlType, ggmlTypeInfo } from '../ggml-types.js';
import type { GgufTensorInfo } from '../gguf/header.js';
import { ROW_SCALE_SUFFIX, rowScaleName } from '../schema/file-types.js';
import type { TensorSpec } from '../schema/tensors.js';

const MATMUL_PLAIN = new Set<number>([GgmlType.F32, GgmlType.F16, GgmlType.BF16]);

function typeName(type: number): string {
  return ggmlTypeInfo(type).name;
}

/**
 * The spec of the weight whose per-row scales `name` holds: `name` is `<weight>.scale` and `<weight>` is a matmul
 * weight of the schema stored as i8 in this file. Undefined for every other name.
 */
function rowScaleBase(name: string, tensors: ReadonlyMap<string, GgufTensorInfo>, expected: ReadonlyMap<string, TensorSpec>): TensorSpec | undefined {
  if (!name.endsWith(ROW_SCALE_SUFFIX)) return undefined;
  const spec = expected.get(name.slice(0, -ROW_SCALE_SUFFIX.length));
  return spec?.role === 'matmul' && tensors.get(spec.name)?.type === GgmlType.I8 ? spec : undefined;
}

/**
 * Every tensor in the file must be one the schema names, or the per-row scales of an i8 matmul weight
 * (`<weight>.scale`, f32); matmul weights f32/f16/bf16/quantized or i8 (with those scales), the rest f32.
 */
export function checkDtypes(tensors: readonly GgufTensorInfo[], expected: ReadonlyMap<string, TensorSpec>): void {
  const byName = new Map(tensors.map((t) => [t.name, t]));
  for (const t of tensors) {
    const spec = expected.get(t.name);
    if (spec === undefined) {
      const base = rowScaleBase(t.name, byName, expected);
      if (base === undefined) {
        const hint = t.name.endsWith(ROW_SCALE_SUFFIX) ? `; a '${ROW_SCALE_SUFFIX}' tensor belongs only to an i8 matmul weight` : '';
        throw new GgufError('JEPA_TENSOR_UNEXPECTED', `tensor '${t.name}' is not part of this model's schema${hint}`);
      }
      if (t.type !== GgmlType.F32) {
        throw new GgufError(
          'JEPA_TENSOR_DTYPE',
          `tensor '${t.name}' is ${typeName(t.type)}; the row scales of the i8 matmul weight '${base.name}' must be f32`,
        );
      }
      continue;
    }
    if (spec.role === 'f32' && t.type !== GgmlType.F32) {
      throw new GgufError('JEPA_TENSOR_DTYPE', `tensor '${t.name}' is ${typeName(t.type)}; the graph adds or multiplies it, so it must be f32`);
    }
    if (spec.role === 'matmul' && !MATMUL_PLAIN.has(t.type) && t.type !== GgmlType.I8 && !ggmlTypeInfo(t.type).isQuantized) {
      throw new GgufError(
        'JEPA_TENSOR_DTYPE',
        `tensor '${t.name}' is ${typeName(t.type)}; a matmul weight must be f32, f16, bf16 or quantized (or i8 with f32 row scales)`,
      );
    }
    if (spec.role === 'matmul' && t.type === GgmlType.I8 && !byName.has(rowScaleName(t.name))) {
      throw new GgufError(
        'JEPA_TENSOR_DTYPE',
        `tensor '${t.name}' is i8 without '${rowScaleName(t.name)}': an i8 matmul weight needs its f32 row scales [${t.shape[1] ?? '?'}] beside it`,
      );
    }
  }
}

/** Schema tensors against the hparams' shapes, then each i8 weight's row scales against its rows: [shape[1]]. */
export function checkShapes(tensors: readonly GgufTensorInfo[], expected: ReadonlyMap<string, TensorSpec>): void {
  const byName = new Map(tensors.map((t) => [t.name, t]));
  const scales: [GgufTensorInfo, TensorSpec][] = [];
  for (const t of tensors) {
    const spec = expected.get(t.name);
    if (spec === undefined) {
      // checkDtypes let it through: the row scales of an i8 weight, checked once every weight's shape is
      const base = rowScaleBase(t.name, byName, expected);
      if (base === undefined) throw new GgufError('JEPA_TENSOR_UNEXPECTED', `tensor '${t.name}' is not part of this model's schema`);
      scales.push([t, base]);
      continue;
    }
    const same = spec.shape.length === t.shape.length && spec.shape.every((d, i) => d === t.shape[i]);
    if (!same) {
      throw new GgufError(
        'JEPA_TENSOR_SHAPE',
        `tensor '${t.name}' has shape [${t.shape.join(', ')}], the hparams require [${spec.shape.join(', ')}]`,
      );
    }
  }
  for (const [t, base] of scales) {
    const rows = (byName.get(base.name) as GgufTensorInfo).shape[1];
    if (t.shape.length !== 1 || t.shape[0] !== rows) {
      throw new GgufError(
        'JEPA_TENSOR_SHAPE',
        `tensor '${t.name}' has shape [${t.shape.join(', ')}]; the i8 matmul weight '${base.name}' has ${rows} rows, so its scales must be [${rows}]`,
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
