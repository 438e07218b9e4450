import { Option } from 'commander';
import type { ModelSpec } from '@jepa/gguf';
import type { Pool } from '@jepa/corpus';
import { UserError } from './user-error.js';

export const poolOption = () =>
  new Option('--pool <mode>', 'mean of patch tokens, the CLS token, every token, or the LeWM state').choices(['mean', 'cls', 'none', 'lewm']);

/** The pooling a run uses: the flag, else CLS where the model has one, else the patch mean. */
export function resolvePool(spec: ModelSpec, flag: Pool | undefined): Pool {
  const pool: Pool = flag ?? (spec.enc.nCls > 0 ? 'cls' : 'mean');
  if (pool === 'cls' && spec.enc.nCls === 0) throw new UserError(`${spec.family} models have no CLS token; use --pool mean`);
  if (pool === 'lewm' && spec.pred?.kind !== 'action') throw new UserError(`--pool lewm needs a LeWorldModel file; this is ${spec.family}`);
  return pool;
}
