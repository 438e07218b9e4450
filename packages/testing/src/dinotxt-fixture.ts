// The tiny seeded dino.txt of fixtures/reference/dinotxt (Meta's layout; scripts/reference/fam_dinotxt.py),
// converted to GGUF as a user converts Meta's files, and its float64 reference: the texts, their text
// vectors (unit length) and the logit scale, made from Meta's sources independently of this engine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { runCli } from './cli.js';
import { DINOTXT, DINOTXT_FILES } from './paths.js';

/** `jepa convert` of the fixture into `out` (throws with the CLI's stderr when it fails); `out`. */
export function convertDinotxt(out: string): string {
  const r = runCli(
    ['convert', DINOTXT_FILES.headAndText, '--backbone', DINOTXT_FILES.backbone, '--vocab', DINOTXT_FILES.vocab, '--text-heads', '2', '-o', out],
    { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`jepa convert of the dino.txt fixture failed: ${r.stderr.trim()}`);
  return out;
}

export interface DinotxtReference {
  texts: string[];
  /** One unit-length float64 text vector per text. */
  textVectors: number[][];
  logitScale: number;
  /** Each text's tokens in CLIP's row, start and end included (the reference tokenizer's ids up to the end token). */
  tokenCounts: number[];
}

function unit(v: ArrayLike<number>): number[] {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  return Array.from(v, (x) => x / n);
}

export function dinotxtReference(): DinotxtReference {
  const manifest = JSON.parse(readFileSync(join(DINOTXT, 'manifest.json'), 'utf8')) as { texts: string[]; hparams: { logit_scale: number } };
  const golden = readNpy(join(DINOTXT, 'text_vectors.npy'));
  const width = golden.shape[1]!;
  const data = golden.data as ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> };
  const ids = readNpy(join(DINOTXT, 'token_ids.npy'));
  const context = ids.shape[1]!;
  const rows = ids.data as ArrayLike<number>;
  const tokenCounts = manifest.texts.map((_, i) => {
    let end = 0;
    for (let j = 0; j < context; j++) if (rows[i * context + j]! > rows[i * context + end]!) end = j;
    return end + 1;
  });
  return {
    texts: manifest.texts,
    tokenCounts,
    textVectors: manifest.texts.map((_, i) => unit(data.subarray(i * width, (i + 1) * width))),
    logitScale: manifest.hparams.logit_scale,
  };
}
