// How an encoder output becomes an embedding, for every front end: the mean of the patch tokens,
// the CLS token, every token, or LeWM's state (the projector on the CLS token).
import type { ModelSpec } from '@jepa/gguf';
import type { EncodeOutput, PoolMode } from '@jepa/graph';
import type { WorldModel } from '@jepa/worldmodel';
import { badField } from '../errors.js';

export type Pool = PoolMode | 'none' | 'lewm';

export const POOLS: readonly Pool[] = ['mean', 'cls', 'none', 'lewm'];

/** The pooling a request uses: its own, else CLS where the model has one, else the patch mean; `field` names it in a refusal. */
export function choosePool(spec: ModelSpec, pool: Pool | undefined, field = 'pool'): Pool {
  const p = pool ?? (spec.enc.nCls > 0 ? 'cls' : 'mean');
  if (p === 'cls' && spec.enc.nCls === 0) throw badField(field, `${spec.family} models have no CLS token; use "mean"`);
  if (p === 'lewm' && spec.pred?.kind !== 'action') throw badField(field, `"lewm" needs a LeWorldModel; this is ${spec.family}`);
  return p;
}

export interface Vector {
  values: Float32Array;
  shape: number[];
}

/**
 * One vector per encoder output: its mean or CLS row, or all its tokens. `lewm` is left to
 * `projectStates`, which runs the world model's projector on the rows together.
 */
export function poolOutputs(outs: readonly EncodeOutput[], pool: Exclude<Pool, 'lewm'>): Vector[] {
  if (pool === 'none') return outs.map((o) => ({ values: o.item(0), shape: [o.nTokens, o.dim] }));
  return outs.map((o) => ({ values: o.pool(pool), shape: [o.dim] }));
}

/** LeWM states of the outputs' CLS rows, projected together: [rows, Dp] as one vector each. */
export async function projectStates(world: WorldModel, outs: readonly EncodeOutput[]): Promise<Vector[]> {
  const D = outs[0]?.dim ?? 0;
  const cls = new Float32Array(outs.length * D);
  for (const [i, o] of outs.entries()) cls.set(o.pool('cls'), i * D);
  const states = await world.project(cls, outs.length);
  const Dp = world.embedDim;
  return outs.map((_, i) => ({ values: states.slice(i * Dp, (i + 1) * Dp), shape: [Dp] }));
}

/** Scales each row of `width` values to unit L2 length (a zero row stays zero). */
export function l2NormalizeRows(values: Float32Array, width: number): void {
  for (let r = 0; r < values.length; r += width) {
    let s = 0;
    for (let d = 0; d < width; d++) s += values[r + d]! * values[r + d]!;
    const n = Math.sqrt(s);
    if (n > 0) for (let d = 0; d < width; d++) values[r + d] = values[r + d]! / n;
  }
}
