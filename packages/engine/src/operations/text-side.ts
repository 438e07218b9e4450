// The session's text side as the operations use it: the refusal of a model without one (from its header,
// before it loads), texts to vectors on the compute lane, and the zero-shot score. Each is the session's.
import type { ModelSpec } from '@jepa/gguf';
import { endPosition } from '@jepa/graph';
import { type Pool, type Vector, l2NormalizeRows, requirePart } from '@jepa/session';
import type { EngineMetrics } from '../queue/engine-metrics.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { computeOnItems } from './compute-on-items.js';

/** The pool that puts an image in the text's space. */
export const ALIGNED: Pool = 'aligned';

/** Refuses (field `model`) a model `id` without a text side, from its header. */
export function requireText(spec: ModelSpec, id: string): void {
  requirePart(spec, id, 'text');
}

/**
 * The texts' vectors, in order: from the model's text cache, else through its text batcher (a graph on the
 * compute lane, shared with concurrent requests' texts); L2-normalised when asked; `signal` drops them
 * while queued.
 */
export async function textVectors(
  slot: ModelSlot,
  texts: readonly string[],
  normalize: boolean | undefined,
  signal: AbortSignal,
  metrics: EngineMetrics,
): Promise<Vector[]> {
  const vectors = await computeOnItems('input', () => slot.embedTexts(texts, signal, (cached, computed) => metrics.textVectors(cached, computed)));
  if (normalize) for (const v of vectors) l2NormalizeRows(v.values, v.values.length);
  return vectors;
}

/** The session's score of each image vector against each label's text vector, exp(logit_scale)·cos: [images][labels]. */
export function labelScores(slot: ModelSlot, images: readonly Vector[], labels: readonly Vector[]): Float32Array[] {
  return slot.session.textScores(images, labels);
}

/** The tokens the texts take in the text tower (start and end included, as cut to its context): what usage counts. */
export function textTokens(slot: ModelSlot, texts: readonly string[]): number {
  const context = slot.spec.text!.context;
  return texts.reduce((n, t) => n + endPosition(slot.session.tokenizer().tokenize(t, context)) + 1, 0);
}
