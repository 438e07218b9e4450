import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { pairKey } from './bpe.js';
import { VOCAB_BYTE_CHARS } from './byte-encoder.js';
import { pySplit } from './clean.js';
import { TextError } from './errors.js';

/** The merges CLIP reads: lines 1..48894 of the file (`merges[1:49152-256-2+1]`), after its header line. */
export const MERGE_COUNT = 49152 - 256 - 2;
export const START_OF_TEXT = '<|startoftext|>';
export const END_OF_TEXT = '<|endoftext|>';
/** 256 byte characters, the same with '</w>', the merges, the two special tokens. */
export const VOCAB_SIZE = 512 + MERGE_COUNT + 2;

/** A CLIP BPE vocabulary: piece to id, and merge ("first second") to rank. */
export interface ClipVocab {
  readonly ids: ReadonlyMap<string, number>;
  readonly ranks: ReadonlyMap<string, number>;
}

/** Reads `bpe_simple_vocab_16e6.txt.gz` (or a file like it) from disk. */
export function readClipVocab(path: string): ClipVocab {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TextError('vocab_missing', `BPE vocabulary ${path}: no such file`, { cause: err });
    throw new TextError('vocab_io', `BPE vocabulary ${path}: cannot read it (${code ?? String(err)})`, { cause: err });
  }
  return parseClipVocab(bytes, path);
}

/** Parses the gzip-compressed merges file; `name` names it in a refusal. */
export function parseClipVocab(gz: Uint8Array, name = 'BPE vocabulary'): ClipVocab {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(gunzipSync(gz));
  } catch (err) {
    throw new TextError('vocab_corrupt', `${name}: not a gzip-compressed UTF-8 merges file (${(err as Error).message})`, { cause: err });
  }
  const lines = text.split('\n');
  if (lines.length < MERGE_COUNT + 1) {
    throw new TextError('vocab_corrupt', `${name}: ${Math.max(0, lines.length - 1)} merge lines, CLIP's vocabulary needs ${MERGE_COUNT}`);
  }
  return clipVocabFromMerges(lines.slice(1, MERGE_COUNT + 1), name, 2);
}

/**
 * A vocabulary from its merges ("first second" each, in rank order), of any count: ids are the 256 byte characters,
 * the same with '</w>', one per merge, then <|startoftext|> and <|endoftext|> (a GGUF's jepa.text.merges; tiny test
 * models carry a few). `firstLine` numbers the merges in a refusal (2 in the file, after its header).
 */
export function clipVocabFromMerges(merges: readonly string[], name = 'BPE vocabulary', firstLine = 1): ClipVocab {
  const ids = new Map<string, number>();
  const ranks = new Map<string, number>();
  let next = 0;
  for (const ch of VOCAB_BYTE_CHARS) ids.set(ch, next++);
  for (const ch of VOCAB_BYTE_CHARS) ids.set(`${ch}</w>`, next++);
  merges.forEach((merge, rank) => {
    const parts = pySplit(merge);
    if (parts.length !== 2) {
      throw new TextError('vocab_corrupt', `${name}: line ${rank + firstLine} is not a merge of two pieces: ${JSON.stringify(merge.slice(0, 40))}`);
    }
    // later entries win, as in CLIP's dict(zip(...))
    ids.set(parts[0] + parts[1], next++);
    ranks.set(pairKey(parts[0], parts[1]), rank);
  });
  ids.set(START_OF_TEXT, next++);
  ids.set(END_OF_TEXT, next++);
  return { ids, ranks };
}
