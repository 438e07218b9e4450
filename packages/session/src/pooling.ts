// How an encoder output becomes an embedding, for every front end: the mean of the patch tokens,
// the CLS token, both side by side, every token, LeWM's state (the projector on the CLS token), or the vector a
// classifier head reads (its pooler's output).
import type { ModelSpec } from '@jepa/gguf';
import type { AlignContext, EncodeOutput, HeadContext, PoolMode } from '@jepa/graph';
import type { WorldModel } from '@jepa/worldmodel';
import { badOption } from './refusal.js';

/** aligned: dino.txt's vision head output, the vector that shares a space with text (2·D). */
export type Pool = PoolMode | 'none' | 'lewm' | 'pooler' | 'aligned';

export const POOLS: readonly Pool[] = ['mean', 'cls', 'cls+mean', 'none', 'lewm', 'pooler', 'aligned'];

/** The pools that read the encoder output alone, with no model part after it. */
export type TokenPool = Exclude<Pool, 'lewm' | 'pooler' | 'aligned'>;

/**
 * The pooling a request uses: its own, else the aligned vector where the model has a text side (dino.txt), else CLS
 * where it has one, else the patch mean; `field` names it in a refusal.
 */
export function choosePool(spec: ModelSpec, pool: Pool | undefined, field = 'pool'): Pool {
  const p = pool ?? (spec.text ? 'aligned' : spec.enc.nCls > 0 ? 'cls' : 'mean');
  if (p === 'aligned' && !spec.text)
    throw badOption(field, `"aligned" needs a dino.txt model; ${spec.name} (${spec.family}) has no vision head or text tower`);
  if ((p === 'cls' || p === 'cls+mean') && spec.enc.nCls === 0) throw badOption(field, `${spec.family} models have no CLS token; use "mean"`);
  if (p === 'lewm' && spec.pred?.kind !== 'action') throw badOption(field, `"lewm" needs a LeWorldModel; this is ${spec.family}`);
  if (p === 'pooler' && !spec.head) throw badOption(field, `"pooler" needs a classifier head; ${spec.name} (${spec.family}) has none`);
  return p;
}

/** The pools that give one vector per item from the encoder output alone (what an index holds). */
export type VectorPool = PoolMode | 'aligned';

/** The width of one pooled vector: the encoder's, twice it for cls+mean, dino.txt's out_dim for aligned. */
export function pooledWidth(spec: ModelSpec, pool: VectorPool): number {
  if (pool === 'aligned') {
    choosePool(spec, pool); // refuses a model without a text side
    return spec.text!.outDim;
  }
  return pool === 'cls+mean' ? 2 * spec.enc.embedDim : spec.enc.embedDim;
}

export interface Vector {
  values: Float32Array;
  shape: number[];
}

/** One vector per item of an encoder output (a batch): its mean or CLS row, both, or all its tokens. */
export function poolBatch(out: EncodeOutput, pool: TokenPool): Vector[] {
  const items = Array.from({ length: out.batch }, (_, i) => i);
  if (pool === 'none') return items.map((i) => ({ values: out.item(i).slice(), shape: [out.nTokens, out.dim] }));
  const rows = out.pool(pool);
  const width = rows.length / out.batch;
  if (out.batch === 1) return [{ values: rows, shape: [width] }];
  return items.map((i) => ({ values: rows.slice(i * width, (i + 1) * width), shape: [width] }));
}

/** poolBatch over several outputs, their items in order. `lewm` is projectStates', `pooler` headPooled's. */
export function poolOutputs(outs: readonly EncodeOutput[], pool: TokenPool): Vector[] {
  return outs.flatMap((o) => poolBatch(o, pool));
}

/** dino.txt's aligned vector (concat(CLS, patch mean) after the vision head) of every item of the outputs, in order. */
export async function alignedVectors(align: AlignContext, outs: readonly EncodeOutput[]): Promise<Vector[]> {
  const vectors: Vector[] = [];
  for (const out of outs) for (const values of await align.aligned(out)) vectors.push({ values, shape: [values.length] });
  return vectors;
}

/** The classifier head's pooled vector of every item of the outputs, in order. */
export async function headPooled(head: HeadContext, outs: readonly EncodeOutput[]): Promise<Vector[]> {
  const vectors: Vector[] = [];
  for (const out of outs) for (const values of await head.pooled(out)) vectors.push({ values, shape: [values.length] });
  return vectors;
}

/** LeWM states of every item's CLS row, projected together in one graph: [rows, Dp] as one vector each. */
export async function projectStates(world: WorldModel, outs: readonly EncodeOutput[]): Promise<Vector[]> {
  const clsRows = outs.map((o) => o.pool('cls'));
  const rows = outs.reduce((n, o) => n + o.batch, 0);
  const cls = new Float32Array(clsRows.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of clsRows) {
    cls.set(r, at);
    at += r.length;
  }
  const states = await world.project(cls, rows);
  const Dp = world.embedDim;
  return Array.from({ length: rows }, (_, i) => ({ values: states.slice(i * Dp, (i + 1) * Dp), shape: [Dp] }));
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
