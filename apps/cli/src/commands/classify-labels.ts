// `jepa classify --label …`: zero-shot classes with a dino.txt model. Each image's aligned vector is scored against
// each label's text vector (the session's textScores: exp(logit_scale)·cos), then softmax over the labels, top k.
import { writeFileSync } from 'node:fs';
import { encodeNpy } from '@jepa/preprocess';
import { type ModelSession, topLabels } from '@jepa/session';
import { printLines, say } from '../display-text.js';

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
  if (flags.logits) {
    const all = new Float32Array(scores.length * labels.length);
    for (const [i, row] of scores.entries()) all.set(row, i * labels.length);
    writeFileSync(flags.logits, encodeNpy(all, [scores.length, labels.length]));
    say(`scores [${scores.length}, ${labels.length}] (exp(logit_scale)·cos, one column per label) -> ${flags.logits}`);
  }
  const rows = scores.map((row, i) => ({ input: images[i]!, top: topLabels(row, labels, flags.topk) }));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows.length === 1 ? rows[0] : rows, null, 2)}\n`);
    return;
  }
  for (const row of rows)
    printLines(
      row.input,
      ...row.top.map((c, rank) => `  ${rank + 1}. ${c.label}  ${(100 * c.prob).toFixed(2)}%  (score ${c.logit.toFixed(4)}, label ${c.index})`),
    );
}
