import { Option, type Command } from 'commander';
import type { DecoderKind, ModelInputOptions } from '@jepa/input';
import { UserError } from './user-error.js';

export interface InputFlags {
  exifOrient?: boolean;
  decoder?: DecoderKind;
  fastDecode?: boolean;
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

export function inputOptions(flags: InputFlags, notice: (message: string) => void): ModelInputOptions {
  if (flags.fastDecode && flags.decoder === 'js') throw new UserError('--fast-decode needs --decoder native: the js decoder has no DCT scaling');
  return { exifOrient: flags.exifOrient !== false, decoder: flags.decoder ?? 'native', notice, fastDecode: flags.fastDecode === true };
}
