// `jepa worldmodel --ref-check FILE.npy`: what the world model just computed (a LeWM rollout, or the
// V-JEPA 2-AC predictor's output) against a stored reference, by the parity judge, with the POLICY
// row of the model's device, modality and weight tier.
import { type Model, policyRow, tierOf } from '@jepa/graph';
import { say } from '../display-text.js';
import { checkSameShape, FAILED_VERDICT, readFloatArray, tokenVerdict } from '../parity-verdict.js';
import { UserError } from '../user-error.js';

/** What is judged: its name in the refusal, and the judge's modality (LeWM encodes images; 2-AC, clips). */
export interface RefCheckSubject {
  what: 'rollout' | 'predictor output';
  modality: 'image' | 'video';
}

/** Says the verdict on `computed` (rows of the last axis are tokens) and throws (exit 3) when it fails. */
export function checkAgainstReference(model: Model, subject: RefCheckSubject, computed: Float32Array, shape: number[], path: string): void {
  const reference = readFloatArray(path, `--ref-check ${path}`, '--ref-check');
  checkSameShape(shape, reference.shape, `--ref-check ${path}: the ${subject.what} against the reference`);
  const row = policyRow(model.device === 'CPU' ? 'cpu' : 'gpu', subject.modality, tierOf(model.spec.fileType));
  const verdict = tokenVerdict(row, computed, reference.data, shape);
  say(`ref-check ${path}: ${verdict.summary}`);
  if (!verdict.pass)
    throw new UserError(
      `--ref-check ${path}: the ${subject.what} is outside the ${row.backend}/${subject.modality}/${row.tier} bars`,
      FAILED_VERDICT,
    );
}
