// `jepa worldmodel --ref-check FILE.npy`: the rollout just computed against a stored reference
// rollout, by the parity judge, with the POLICY row of the model's device and weight tier.
import { policyRow, tierOf } from '@jepa/graph';
import type { WorldModel } from '@jepa/worldmodel';
import { say } from '../display-text.js';
import { checkSameShape, FAILED_VERDICT, readFloatArray, tokenVerdict } from '../parity-verdict.js';
import { UserError } from '../user-error.js';

/** Says the verdict on `rolled` ([K, T+1, D]: K·(T+1) states of D values) and throws (exit 3) when it fails. */
export function checkRollout(wm: WorldModel, rolled: Float32Array, shape: number[], path: string): void {
  const reference = readFloatArray(path, `--ref-check ${path}`, '--ref-check');
  checkSameShape(shape, reference.shape, `--ref-check ${path}: the rollout against the reference`);
  const row = policyRow(wm.model.device === 'CPU' ? 'cpu' : 'gpu', 'image', tierOf(wm.model.spec.fileType));
  const verdict = tokenVerdict(row, rolled, reference.data, shape);
  say(`ref-check ${path}: ${verdict.summary}`);
  if (!verdict.pass) throw new UserError(`--ref-check ${path}: the rollout is outside the ${row.backend}/image/${row.tier} bars`, FAILED_VERDICT);
}
