// The Pillow peer of jepa-bench pipeline: what an HF / torchvision user's Python loop spends on
// preprocessing, Image.open + ImageOps.exif_transpose + convert('RGB') + the recipe's resize
// (reducing_gap=None, the exact convolution) + centre crop, timed per file in one Debian Python
// process by scripts/bench/pillow_preprocess.py.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEBIAN_PYTHON, peerRecipeJson, repoRoot, runJsonChild, type PeerRecipe } from './peer-common.js';

export interface PillowResult {
  /** Per file, the median over the repeats, in the order of `files`. */
  perImageMs: number[];
  /** Median and mean of perImageMs. */
  medianMs: number;
  meanMs: number;
  /** Wall time of all the passes. */
  totalS: number;
  /** Pillow's version. */
  pillow: string;
  images: number;
  repeat: number;
  /** The output's [width, height] (the crop size when the recipe crops). */
  outputSize: [number, number];
}

/**
 * Times Pillow on `files` (each `repeat` times, passes in order) with `recipe`; the first `warmup` files
 * (default 1) first go through once untimed.
 */
export async function runPillow(recipe: PeerRecipe, files: string[], repeat = 1, warmup = 1): Promise<PillowResult> {
  if (files.length === 0) throw new Error('runPillow: no files');
  const work = mkdtempSync(join(tmpdir(), 'jepa-pillow-'));
  try {
    const list = join(work, 'files.txt');
    writeFileSync(list, `${files.join('\n')}\n`);
    return await runJsonChild<PillowResult>(DEBIAN_PYTHON, [
      join(repoRoot, 'scripts/bench/pillow_preprocess.py'),
      '--recipe',
      JSON.stringify(peerRecipeJson(recipe)),
      '--files',
      list,
      '--repeat',
      String(Math.max(1, Math.floor(repeat))),
      '--warmup',
      String(Math.max(0, Math.floor(warmup))),
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
