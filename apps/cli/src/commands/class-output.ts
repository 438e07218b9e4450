// What `jepa classify` writes, with a head or with labels in words: the scores as .npy, then the top classes of
// each input as JSON or as lines.
import { writeFileSync } from 'node:fs';
import type { ClassScore } from '@jepa/graph';
import { encodeNpy } from '@jepa/preprocess';
import { printLines, say } from '../display-text.js';

export interface ClassRow {
  input: string;
  top: readonly ClassScore[];
}

/** Every input's n scores as one [inputs, n] .npy; `name` and `gloss` say what they are in the line on stderr. */
export function writeScores(path: string, scores: readonly ArrayLike<number>[], n: number, name: string, gloss?: string): void {
  const all = new Float32Array(scores.length * n);
  for (const [i, row] of scores.entries()) all.set(row, i * n);
  writeFileSync(path, encodeNpy(all, [scores.length, n]));
  say(`${name} [${scores.length}, ${n}]${gloss ? ` (${gloss})` : ''} -> ${path}`);
}

/** JSON (one object for one input), or per input its ranked classes; `score` and `index` name the two numbers. */
export function printClassRows(rows: readonly ClassRow[], json: boolean, words: { score: string; index: string }): void {
  if (json) {
    const plain = rows.map((r) => ({ input: r.input, top: r.top.map((c) => ({ label: c.label, index: c.index, prob: c.prob, logit: c.logit })) }));
    process.stdout.write(`${JSON.stringify(plain.length === 1 ? plain[0] : plain, null, 2)}\n`);
    return;
  }
  // the labels are the file's or the user's, the input names the user's: both go out inert
  for (const row of rows)
    printLines(
      row.input,
      ...row.top.map(
        (c, rank) => `  ${rank + 1}. ${c.label}  ${(100 * c.prob).toFixed(2)}%  (${words.score} ${c.logit.toFixed(4)}, ${words.index} ${c.index})`,
      ),
    );
}
