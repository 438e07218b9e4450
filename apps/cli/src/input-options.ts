import { Option, type Command } from 'commander';
import type { DecoderKind, ModelInputOptions } from '@jepa/input';

export interface InputFlags {
  exifOrient?: boolean;
  decoder?: DecoderKind;
}

/** The decode flags every command that reads images or clips shares. */
export function addInputOptions(cmd: Command): Command {
  return cmd
    .option('--no-exif-orient', "keep pixels as stored (default: apply EXIF orientation, as Pillow's exif_transpose)")
    .addOption(
      new Option('--decoder <kind>', "native: sharp decode and the addon's resize; js: the portable pure-JS path (JPEG and PNG)")
        .choices(['native', 'js'])
        .default('native'),
    );
}

export function inputOptions(flags: InputFlags, notice: (message: string) => void): ModelInputOptions {
  return { exifOrient: flags.exifOrient !== false, decoder: flags.decoder ?? 'native', notice };
}
