// Which tensors change type, to what, and why not: only 2-D matmul weights are re-typed; k-quants
// fall back per tensor when a row is not a whole number of 256-value super-blocks. q8_row (int8
// with one f32 scale per output row) takes any row length.
import { expectedTensors, FILE_TYPE_Q8_ROW, GgmlType, ggmlTypeByName, ggmlTypeInfo, type ModelSpec } from '@jepa/gguf';

export const TARGETS = ['f16', 'bf16', 'q8_0', 'q8_row', 'q6_k', 'q5_k', 'q5_1', 'q5_0', 'q4_k', 'q4_1', 'q4_0'] as const;
export type Target = (typeof TARGETS)[number];

/** llama.cpp's general.file_type code of each target (its LLAMA_FTYPE_MOSTLY_* values); q8_row has jepa's own. */
export const FILE_TYPE: Record<Target, number> = {
  f16: 1,
  q4_0: 2,
  q4_1: 3,
  q8_0: 7,
  q8_row: FILE_TYPE_Q8_ROW,
  q5_0: 8,
  q5_1: 9,
  q4_k: 15,
  q5_k: 17,
  q6_k: 18,
  bf16: 32,
};

const FALLBACK: Partial<Record<Target, Target>> = { q4_k: 'q4_0', q5_k: 'q5_0', q6_k: 'q8_0' };

export interface TensorPlan {
  name: string;
  shape: readonly number[];
  from: number;
  to: number;
  note?: string;
  /** q8_row: the tensor is written as i8 with its f32 `<name>.scale` [rows] right after it. */
  rowScale?: boolean;
}

export function planQuantization(spec: ModelSpec, target: Target, keep: readonly string[]): { plans: TensorPlan[]; fallbacks: string[] } {
  const roles = new Map(expectedTensors(spec).map((t) => [t.name, t.role]));
  const plans: TensorPlan[] = [];
  const fallbacks: string[] = [];
  for (const t of spec.tensors.values()) {
    const plan: TensorPlan = { name: t.name, shape: t.shape, from: t.type, to: t.type };
    plans.push(plan);
    const fromName = ggmlTypeInfo(t.type).name;
    if (roles.get(t.name) !== 'matmul' || t.shape.length !== 2) continue;
    if (keep.some((k) => t.name.includes(k))) {
      plan.note = 'kept (--keep)';
      continue;
    }
    if (fromName !== 'f32' && fromName !== 'f16' && fromName !== 'bf16') {
      plan.note = `kept: already ${fromName}`;
      continue;
    }
    if (target === 'q8_row') {
      plan.to = GgmlType.I8;
      plan.rowScale = true;
      continue;
    }
    let chosen: Target = target;
    const row = t.shape[0]!;
    const fits = (x: Target) => row % ggmlTypeByName(x).blockSize === 0;
    if (!fits(chosen) && FALLBACK[chosen] && fits(FALLBACK[chosen]!)) {
      fallbacks.push(`${t.name}: rows of ${row} are not multiples of 256, ${target} -> ${FALLBACK[chosen]}`);
      chosen = FALLBACK[chosen]!;
    }
    if (!fits(chosen)) {
      plan.note = `kept: rows of ${row} are not whole ${chosen} blocks`;
      fallbacks.push(`${t.name}: ${plan.note}`);
      continue;
    }
    plan.to = ggmlTypeByName(chosen).id;
  }
  return { plans, fallbacks };
}
