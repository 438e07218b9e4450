import { Option } from 'commander';
import type { ModelSpec } from '@jepa/gguf';
import { type Pool, POOLS, choosePool } from '@jepa/session';

export const poolOption = () =>
  new Option(
    '--pool <mode>',
    'mean of patch tokens, the CLS token, both side by side (cls+mean), every token, the LeWM state, or the vector the classifier head reads',
  ).choices(POOLS);

/** The pooling a run uses: the flag, else CLS where the model has one, else the patch mean (the engine's one rule). */
export function resolvePool(spec: ModelSpec, flag: Pool | undefined): Pool {
  return choosePool(spec, flag, '--pool');
}
