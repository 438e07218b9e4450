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
  const ids = new Map<string, number>();
  const ranks = new Map<string, number>();
  let next = 0;
  for (const ch of VOCAB_BYTE_CHARS) ids.set(ch, next++);
  for (const ch of VOCAB_BYTE_CHARS) ids.set(`${ch}</w>`, next++);
  for (let rank = 0; rank < MERGE_COUNT; rank++) {
    const parts = pySplit(lines[rank + 1]);
    if (parts.length !== 2) {
      throw new TextError('vocab_corrupt', `${name}: line ${rank + 2} is not a merge of two pieces: ${JSON.stringify(lines[rank + 1].slice(0, 40))}`);
    }
    // later entries win, as in CLIP's dict(zip(...))
    ids.set(parts[0] + parts[1], next++);
    ranks.set(pairKey(parts[0], parts[1]), rank);
  }
  ids.set(START_OF_TEXT, next++);
  ids.set(END_OF_TEXT, next++);
  return { ids, ranks };
}
