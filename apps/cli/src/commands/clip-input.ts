// The one encoder input the classify and predict commands take: an image, a clip, a clip's frames
// or an already preprocessed tensor, as a batch of one (or B from --input-npy).
import type { EncoderInput, Model } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { ModelInput } from '@jepa/input';
import { inputOptions, type InputFlags } from '../input-options.js';
import { UserError } from '../user-error.js';

export interface ClipFlags extends InputFlags {
  video?: string;
  framesNpy?: string;
  inputNpy?: string;
}

export const say = (message: string) => process.stderr.write(`jepa: ${message}\n`);

export async function clipInput(model: Model, image: string | undefined, flags: ClipFlags): Promise<{ label: string; input: EncoderInput }> {
  const given = [image, flags.video, flags.framesNpy, flags.inputNpy].filter((x) => x !== undefined);
  if (given.length !== 1) throw new UserError('give exactly one of an image, --video, --frames-npy or --input-npy');
  if (flags.inputNpy) {
    const npy = readNpy(flags.inputNpy);
    if (npy.dtype !== 'float32' || !(npy.shape.length === 4 || npy.shape.length === 5))
      throw new UserError(`--input-npy ${flags.inputNpy}: expected float32 [B,3,H,W] or [B,3,T,H,W], got ${npy.dtype} [${npy.shape.join(', ')}]`);
    return { label: flags.inputNpy, input: { data: npy.data as Float32Array, shape: [...npy.shape] } };
  }
  const m = new ModelInput(model.spec, inputOptions(flags, say));
  const item = flags.video ? await m.video(flags.video) : flags.framesNpy ? await m.framesNpy(flags.framesNpy) : await m.image(image!);
  return { label: (flags.video ?? flags.framesNpy ?? image)!, input: { data: item.data, shape: [1, ...item.shape] } };
}
