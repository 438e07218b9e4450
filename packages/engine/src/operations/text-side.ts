// The session's text side as the operations use it: the refusal of a model without one (from its header,
// before it loads), texts to vectors on the compute lane, and the zero-shot score. Each is the session's.
import type { ModelSpec } from '@jepa/gguf';
import { type Pool, type Vector, badOption } from '@jepa/session';
import type { ModelSlot } from '../registry/model-slot.js';
import { computeOnItems } from './compute-on-items.js';
import type { EngineCore } from './engine-core.js';

/** The pool that puts an image in the text's space. */
export const ALIGNED = 'aligned' as Pool;

interface TextSession {
  embedText(texts: readonly string[], options?: { normalize?: boolean }): Promise<Vector[]>;
  textScore(image: Vector, text: Vector): number;
}

/** Refuses (field `model`) a model `id` without a text side, from its header. */
export function requireText(spec: ModelSpec, id: string): void {
  if (spec.text === null) throw badOption('model', `${id} has no text side (words need a dino.txt model)`, 'unsupported_model');
}

/** The texts' vectors, in order, one graph on the compute lane. */
export function textVectors(core: EngineCore, slot: ModelSlot, texts: readonly string[], normalize: boolean | undefined): Promise<Vector[]> {
  const session = slot.session as unknown as TextSession;
  return computeOnItems('input', () => core.lane.run(() => session.embedText(texts, { normalize: normalize ?? false })));
}

/** The session's score of an image vector against each label's text vector: exp(logit_scale)·cos. */
export function labelScores(slot: ModelSlot, image: Vector, labels: readonly Vector[]): Float32Array {
  const session = slot.session as unknown as TextSession;
  return Float32Array.from(labels, (l) => session.textScore(image, l));
}
