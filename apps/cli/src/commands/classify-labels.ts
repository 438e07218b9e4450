// `jepa classify --label …`: zero-shot classes with a dino.txt model. Each image's aligned vector is scored against
// each label's text vector (the session's textScores: exp(logit_scale)·cos), then softmax over the labels, top k.
import { type ModelSession, topLabels } from '@jepa/session';
import { printClassRows, writeScores } from './class-output.js';

export interface ZeroShotFlags {
  topk: number;
  json?: boolean;
  logits?: string;
}

export async function classifyByLabels(
  session: ModelSession,
  images: readonly string[],
  labels: readonly string[],
  flags: ZeroShotFlags,
): Promise<void> {
  // the text side first: a model without one is refused before any image is decoded
  const texts = await session.embedText(labels);
  const vectors = await session.embed(images, { pool: 'aligned' });
  const scores = session.textScores(vectors, texts);
  if (flags.logits) writeScores(flags.logits, scores, labels.length, 'scores', 'exp(logit_scale)·cos, one column per label');
  const rows = scores.map((row, i) => ({ input: images[i]!, top: topLabels(row, labels, flags.topk) }));
  printClassRows(rows, flags.json === true, { score: 'score', index: 'label' });
}
