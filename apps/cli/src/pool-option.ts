import { Option } from 'commander';
import type { ModelSpec } from '@jepa/gguf';
import type { HeadContext, Model } from '@jepa/graph';
import { WorldModel } from '@jepa/worldmodel';
import { type Pool, POOLS, choosePool } from '@jepa/engine';

export const poolOption = () =>
  new Option(
    '--pool <mode>',
    'mean of patch tokens, the CLS token, both side by side (cls+mean), every token, the LeWM state, or the vector the classifier head reads',
  ).choices(POOLS);

/** The pooling a run uses: the flag, else CLS where the model has one, else the patch mean (the engine's one rule). */
export function resolvePool(spec: ModelSpec, flag: Pool | undefined): Pool {
  return choosePool(spec, flag, '--pool');
}

/** The model parts a pooling runs after the encoder: LeWM's projector, or the classifier head's pooler. */
export function poolParts(model: Model, pool: Pool): { world: WorldModel | null; head: HeadContext | null; dispose(): void } {
  const world = pool === 'lewm' ? new WorldModel(model) : null;
  const head = pool === 'pooler' ? model.createHeadContext() : null;
  return {
    world,
    head,
    dispose() {
      world?.dispose();
      void head?.dispose();
    },
  };
}
