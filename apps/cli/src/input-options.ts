import { Option, type Command } from 'commander';
import type { DecoderKind, ModelInputOptions } from '@jepa/input';
import { UserError } from './user-error.js';

export interface InputFlags {
  exifOrient?: boolean;
  decoder?: DecoderKind;
  fastDecode?: boolean;
  /** `--size H[xW]`, on the commands that take it (addSizeOption). */
  size?: string;
}

/** The decode flags every command that reads images or clips shares. */
export function addInputOptions(cmd: Command): Command {
  return cmd
    .option('--no-exif-orient', "keep pixels as stored (default: apply EXIF orientation, as Pillow's exif_transpose)")
    .addOption(
      new Option('--decoder <kind>', "native: sharp decode and the addon's resize; js: the portable pure-JS path (JPEG and PNG)")
        .choices(['native', 'js'])
        .default('native'),
    )
    .option(
      '--fast-decode',
      "shrink large JPEGs by 1/2, 1/4 or 1/8 while decoding (DCT scaling, as Pillow's draft) where the resize allows: faster, not bit-exact with Pillow",
    );
}

/** `--size`: the input size a run takes instead of the model's recipe (embed, features, classify, predict, preprocess). */
export function addSizeOption(cmd: Command): Command {
  return cmd.option(
    '--size <H[xW]>',
    "resize every image and frame straight to H x W pixels (one number: square), no crop, instead of the model's recipe; for encoders that run any patch grid (DINOv3 at 512 or 768)",
  );
}

const MAX_SIDE = 65536;

/** `--size 512` or `--size 480x640` (height x width) as pixels. */
export function parseSize(text: string): { height: number; width: number } {
  const m = /^(\d+)(?:x(\d+))?$/.exec(text.trim());
  const height = m ? Number(m[1]) : Number.NaN;
  const width = m ? Number(m[2] ?? m[1]) : Number.NaN;
  if (!(height >= 1 && height <= MAX_SIDE && width >= 1 && width <= MAX_SIDE))
    throw new UserError(`--size ${JSON.stringify(text)} is not N or HxW (pixels, height by width, each 1..${MAX_SIDE})`);
  return { height, width };
}

/** --size resizes what is decoded; an --input-npy tensor is already the network's input, so the two are refused together. */
export function refuseSizeOfTensor(flags: { size?: string; inputNpy?: unknown }): void {
  if (flags.size !== undefined && flags.inputNpy !== undefined)
    throw new UserError('--size resizes decoded images and frames; --input-npy is already preprocessed: give one of them');
}

export function inputOptions(flags: InputFlags, notice: (message: string) => void): ModelInputOptions {
  if (flags.fastDecode && flags.decoder === 'js') throw new UserError('--fast-decode needs --decoder native: the js decoder has no DCT scaling');
  return {
    exifOrient: flags.exifOrient !== false,
    decoder: flags.decoder ?? 'native',
    notice,
    fastDecode: flags.fastDecode === true,
    ...(flags.size !== undefined ? { size: parseSize(flags.size) } : {}),
  };
}
