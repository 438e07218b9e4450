// jepa-bench pipeline --fast-decode: the DCT-scaled decode (ModelInput's fastDecode) against the full
// one on the same photos, one image at a time, alternating which goes first: the time of each, and how
// far the recipe's pixels move (resize and centre crop, before normalising) in 8-bit levels. Pillow's
// draft mode against Pillow's full decode beside it, by scripts/bench/pillow_draft.py.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeImageStored, RecipeTensors, recipeGeometry, type SharpDecodeOptions, type StoredImage } from '@jepa/input';
import { resampleU8 } from '@jepa/native';
import { resizedSize, type PreprocessRecipe } from '@jepa/preprocess';
import { DEBIAN_PYTHON, peerRecipeJson, repoRoot, runJsonChild } from './peer-common.js';

/** ms per image, in file order. */
export interface DecodeSideTimes {
  decodeMs: number[];
  recipeMs: number[];
  totalMs: number[];
}

export interface FastDecodeStages {
  full: DecodeSideTimes;
  fast: DecodeSideTimes;
  /** The DCT shrink fast decode used on each file (1: decoded in full). */
  shrinks: number[];
  /** Per file: the largest and the mean absolute difference of the recipe's 8-bit output, fast against full. */
  maxAbs: number[];
  meanAbs: number[];
}

const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The recipe's resize and crop of a stored image, in 8-bit RGB (what the normalisation tables then map). */
async function recipeBytes(s: StoredImage, recipe: PreprocessRecipe): Promise<Uint8Array> {
  const [w, h] = s.orientation >= 5 ? [s.full.height, s.full.width] : [s.full.width, s.full.height];
  const g = recipeGeometry(w, h, recipe);
  const { image } = s;
  return resampleU8({
    src: image.data,
    width: image.width,
    height: image.height,
    channels: 3,
    orientation: s.orientation,
    outWidth: g.outWidth,
    outHeight: g.outHeight,
    filter: recipe.resample,
    crop: g.crop,
  });
}

/** Full and fast decode of each file, then the recipe as `jepa embed` runs it (the addon, through strides). */
export async function fastDecodeStages(recipe: PreprocessRecipe, files: string[]): Promise<FastDecodeStages> {
  const tensors = new RecipeTensors(recipe);
  const out: FastDecodeStages = {
    full: { decodeMs: [], recipeMs: [], totalMs: [] },
    fast: { decodeMs: [], recipeMs: [], totalMs: [] },
    shrinks: [],
    maxAbs: [],
    meanAbs: [],
  };
  const run = async (bytes: Uint8Array, options: SharpDecodeOptions, side: DecodeSideTimes) => {
    const t0 = process.hrtime.bigint();
    const s = await decodeImageStored(bytes, options);
    const decodeMs = msSince(t0);
    const t1 = process.hrtime.bigint();
    await tensors.image(s.image, s.orientation, s.full);
    side.decodeMs.push(decodeMs);
    side.recipeMs.push(msSince(t1));
    side.totalMs.push(msSince(t0));
    return s;
  };
  for (const [i, file] of files.entries()) {
    const bytes = await readFile(file);
    const fastOptions: SharpDecodeOptions = { shrinkOnLoad: { path: file, atLeast: (w, h) => resizedSize(w, h, recipe) } };
    let full: StoredImage;
    let fast: StoredImage;
    if (i % 2 === 0) {
      full = await run(bytes, {}, out.full);
      fast = await run(bytes, fastOptions, out.fast);
    } else {
      fast = await run(bytes, fastOptions, out.fast);
      full = await run(bytes, {}, out.full);
    }
    const a = await recipeBytes(full, recipe);
    const b = await recipeBytes(fast, recipe);
    let max = 0;
    let sum = 0;
    for (let k = 0; k < a.length; k++) {
      const d = Math.abs(a[k]! - b[k]!);
      if (d > max) max = d;
      sum += d;
    }
    out.shrinks.push(fast.shrink);
    out.maxAbs.push(max);
    out.meanAbs.push(sum / a.length);
  }
  return out;
}

export interface PillowDraftFile {
  shrink: number;
  fullMs: number;
  draftMs: number;
  maxAbs: number;
  meanAbs: number;
}

/** scripts/bench/pillow_draft.py on `files`: Pillow's full decode and its draft mode, timed and compared. */
export async function runPillowDraft(recipe: PreprocessRecipe, files: string[]): Promise<{ files: PillowDraftFile[]; pillow: string }> {
  const work = mkdtempSync(join(tmpdir(), 'jepa-pillow-draft-'));
  try {
    const list = join(work, 'files.txt');
    writeFileSync(list, `${files.join('\n')}\n`);
    return await runJsonChild(DEBIAN_PYTHON, [
      join(repoRoot, 'scripts/bench/pillow_draft.py'),
      '--recipe',
      JSON.stringify(peerRecipeJson(recipe)),
      '--files',
      list,
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
