// --frames-dir DIR: a clip given as a folder of frame images, in natural name order (frame2 before
// frame10). As with --frames-npy, every frame is taken as it is, in order, and the model's trained
// clip length is only noted when it differs; the encoder refuses a count that is not whole tubelets.
import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { MAX_WINDOW_FRAMES } from '@jepa/engine';
import type { ItemTensor, ModelInput } from '@jepa/input';
import type { RgbImage } from '@jepa/preprocess';
import { IMAGE_EXTENSIONS } from './inputs.js';
import { checkInputFolder, fsErrorMessage, fsReason, isFsError, UserError } from './user-error.js';

/** The most frames one folder may give: the bound a request's window takes (the decoded frames are held together). */
export const MAX_FOLDER_FRAMES = MAX_WINDOW_FRAMES;

const FLAG = '--frames-dir';

/** Digit runs compare as numbers, everything else by code unit: deterministic on every machine. */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const digits = /^\d/.test(x) && /^\d/.test(y);
    if (digits) {
      const byValue = Number(x) - Number(y);
      if (byValue !== 0) return Math.sign(byValue);
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** The folder's image files in natural order, refused when there are none or more than the bound. */
export function frameFiles(dir: string): string[] {
  checkInputFolder(dir, FLAG);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => IMAGE_EXTENSIONS.has(extname(n).toLowerCase()) && statSync(join(dir, n)).isFile());
  } catch (err) {
    throw isFsError(err) ? new UserError(`${FLAG} ${dir}: ${fsReason(err)}`) : err;
  }
  if (names.length === 0) throw new UserError(`${FLAG} ${dir}: no images in the folder (${[...IMAGE_EXTENSIONS].join(', ')})`);
  if (names.length > MAX_FOLDER_FRAMES)
    throw new UserError(`${FLAG} ${dir}: ${names.length} frames; a folder clip takes at most ${MAX_FOLDER_FRAMES}`);
  return names.sort(naturalCompare).map((n) => join(dir, n));
}

async function readFrame(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (err) {
    throw isFsError(err) ? new UserError(`${FLAG}: ${fsErrorMessage(err, file)}`) : err;
  }
}

/** The folder's frames, decoded upright as a still is, then run through the clip recipe as --frames-npy's are. */
export async function frameFolderClip(input: ModelInput, dir: string, notice: (message: string) => void): Promise<ItemTensor> {
  const files = frameFiles(dir);
  const frames: Uint8Array[] = [];
  let first: { file: string; image: RgbImage } | undefined;
  for (const file of files) {
    const image = await input.decode(await readFrame(file));
    first ??= { file, image };
    if (image.width !== first.image.width || image.height !== first.image.height)
      throw new UserError(
        `${FLAG} ${dir}: ${basename(file)} is ${image.width}x${image.height} but ${basename(first.file)} is ${first.image.width}x${first.image.height}; the frames of a clip share one size`,
      );
    frames.push(image.data);
  }
  const trained = input.spec.enc.nFrames;
  if (frames.length !== trained) notice(`${dir}: ${frames.length} frames, the model was trained on ${trained}`);
  return input.clip({ frames, width: first!.image.width, height: first!.image.height });
}
