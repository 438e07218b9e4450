// What an operation makes of encoder outputs once they are in: pooled vectors, and a head's scores.
import type { EncodeOutput } from '@jepa/graph';
import type { ModelSlot } from '../registry/model-slot.js';
import { computeOnItems } from './compute-on-items.js';
import type { EngineCore } from './engine-core.js';
import { type Pool, type Vector, headPooled, l2NormalizeRows, poolOutputs, projectStates } from './pooling.js';

/** One vector per output by `pool` (LeWM's projector and the head's pooler on the compute lane), L2-normalised when asked. */
export async function pooledVectors(
  core: EngineCore,
  slot: ModelSlot,
  outs: readonly EncodeOutput[],
  pool: Pool,
  normalize: boolean | undefined,
): Promise<Vector[]> {
  const vectors =
    pool === 'lewm'
      ? await computeOnItems('input', () => core.lane.run(() => projectStates(slot.world(), outs)))
      : pool === 'pooler'
        ? await computeOnItems('input', () => core.lane.run(() => headPooled(slot.head(), outs)))
        : poolOutputs(outs, pool);
  if (normalize) for (const v of vectors) l2NormalizeRows(v.values, v.shape[v.shape.length - 1]!);
  return vectors;
}

/** The classifier head over each output, on the compute lane: the top k and the logits of each. */
export function headScores(core: EngineCore, head: ReturnType<ModelSlot['head']>, outs: readonly EncodeOutput[], k: number) {
  return computeOnItems('input', () =>
    core.lane.run(async () => {
      const all = [];
      for (const out of outs) all.push((await head.classify(out, k))[0]!);
      return all;
    }),
  );
}
