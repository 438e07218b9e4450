// CLIP's gzip-compressed BPE merges file (bpe_simple_vocab_16e6.txt.gz): a header line, then one "first second"
// merge per line. dino.txt's conversion stores the merges its text tower reads in the GGUF (jepa.text.merges).
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ConvertError } from './errors.js';

/** The file Meta's hub loader downloads beside the weights; --vocab's default, looked for next to the dino.txt file. */
export const DEFAULT_VOCAB = 'bpe_simple_vocab_16e6.txt.gz';

export function defaultVocabPath(dinotxt: string): string {
  return join(dirname(dinotxt), DEFAULT_VOCAB);
}

/** Every merge of the file, in rank order (the header line dropped). */
export function readBpeMerges(path: string, given: boolean): string[] {
  let gz: Buffer;
  try {
    gz = readFileSync(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const hint = given ? '' : `; give CLIP's vocabulary with --vocab (the default is ${DEFAULT_VOCAB} beside the dino.txt file)`;
    throw new ConvertError('CONVERT_IO', `BPE vocabulary ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`}${hint}`, {
      cause,
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(gunzipSync(gz));
  } catch (cause) {
    throw new ConvertError('CONVERT_BAD_CONFIG', `${basename(path)}: not a gzip-compressed UTF-8 BPE merges file`, { cause });
  }
  const lines = text.split('\n').slice(1);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    if (!/^\S+ \S+$/u.test(line))
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `${basename(path)}: line ${i + 2} is not a merge of two pieces: ${JSON.stringify(line.slice(0, 40))}`,
      );
  });
  return lines;
}
