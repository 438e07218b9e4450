import { Option } from 'commander';
import type { ModelSpec } from '@jepa/gguf';
import { type Pool, choosePool } from '@jepa/engine';

export const poolOption = () =>
  new Option('--pool <mode>', 'mean of patch tokens, the CLS token, every token, or the LeWM state').choices(['mean', 'cls', 'none', 'lewm']);

/** The pooling a run uses: the flag, else CLS where the model has one, else the patch mean (the engine's one rule). */
export function resolvePool(spec: ModelSpec, flag: Pool | undefined): Pool {
  return choosePool(spec, flag, '--pool');
}
