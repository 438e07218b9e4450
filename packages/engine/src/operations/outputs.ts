// What an operation makes of encoder outputs once they are in: pooled vectors, and a head's scores.
import type { EncodeOutput } from '@jepa/graph';
import type { ModelSlot } from '../registry/model-slot.js';
import { computeOnItems } from './compute-on-items.js';
import type { EngineCore } from './engine-core.js';
import type { Pool, Vector } from '@jepa/session';

/** One vector per output by `pool` (LeWM's projector and the head's pooler on the compute lane), L2-normalised when asked. */
export async function pooledVectors(
  core: EngineCore,
  slot: ModelSlot,
  outs: readonly EncodeOutput[],
  pool: Pool,
  normalize: boolean | undefined,
): Promise<Vector[]> {
  return slot.session.pool(outs, pool, { normalize, compute: (work) => computeOnItems('input', () => core.lane.run(work)) });
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
