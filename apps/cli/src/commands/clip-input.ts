// The one encoder input the classify, features and predict commands take: an image, a clip, a clip's
// frames (.npy or a folder of images) or an already preprocessed tensor, as a batch of one (or B from --input-npy).
import type { EncoderInput } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import type { ModelSession } from '@jepa/session';
import { frameFiles, frameFolderClip } from '../frame-folder.js';
import { refuseSizeOfTensor, type InputFlags } from '../input-options.js';
import { say } from '../display-text.js';
import { checkInputFile, UserError } from '../user-error.js';

export interface ClipFlags extends InputFlags {
  video?: string;
  framesNpy?: string;
  framesDir?: string;
  inputNpy?: string;
}

/** The option line of --frames-dir on the commands that take one clip. */
export const FRAMES_DIR_OPTION = ['--frames-dir <dir>', 'a clip as a folder of frame images, in natural name order'] as const;

/**
 * Refuses anything but exactly one input, and one that is not a readable file, naming its flag:
 * before the model is loaded.
 */
export function checkClipInput(image: string | undefined, flags: ClipFlags): void {
  const given = [image, flags.video, flags.framesNpy, flags.framesDir, flags.inputNpy].filter((x) => x !== undefined);
  if (given.length !== 1) throw new UserError('give exactly one of an image, --video, --frames-npy, --frames-dir or --input-npy');
  refuseSizeOfTensor(flags);
  if (image !== undefined) checkInputFile(image);
  else if (flags.video !== undefined) checkInputFile(flags.video, '--video');
  else if (flags.framesNpy !== undefined) checkInputFile(flags.framesNpy, '--frames-npy');
  else if (flags.framesDir !== undefined) frameFiles(flags.framesDir);
  else checkInputFile(flags.inputNpy!, '--input-npy');
}

export async function clipInput(session: ModelSession, image: string | undefined, flags: ClipFlags): Promise<{ label: string; input: EncoderInput }> {
  checkClipInput(image, flags);
  if (flags.inputNpy) {
    const npy = readNpy(flags.inputNpy);
    if (npy.dtype !== 'float32' || !(npy.shape.length === 4 || npy.shape.length === 5))
      throw new UserError(`--input-npy ${flags.inputNpy}: expected float32 [B,3,H,W] or [B,3,T,H,W], got ${npy.dtype} [${npy.shape.join(', ')}]`);
    return { label: flags.inputNpy, input: { data: npy.data as Float32Array, shape: [...npy.shape] } };
  }
  const m = session.input;
  const item = flags.video
    ? await m.video(flags.video)
    : flags.framesNpy
      ? await m.framesNpy(flags.framesNpy)
      : flags.framesDir
        ? await frameFolderClip(m, flags.framesDir, say)
        : await m.image(image!);
  return { label: (flags.video ?? flags.framesNpy ?? flags.framesDir ?? image)!, input: { data: item.data, shape: [1, ...item.shape] } };
}
