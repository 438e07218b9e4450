import { bpe } from './bpe.js';
import { toByteChars } from './byte-encoder.js';
import { cleanText } from './clean.js';
import { TextError } from './errors.js';
import { preTokens } from './pretokenize.js';
import { type ClipVocab, END_OF_TEXT, readClipVocab, START_OF_TEXT } from './vocab.js';

/** CLIP's context: 77 tokens, start and end included. */
export const CONTEXT_LENGTH = 77;

/**
 * OpenAI CLIP's tokenizer (clip/simple_tokenizer.py), the one dino.txt uses: clean-up, pre-tokens,
 * byte-level BPE with '</w>' word ends. `encode` gives the ids of a text; `tokenize` the padded row
 * the text tower reads.
 */
export class ClipTokenizer {
  readonly startId: number;
  readonly endId: number;
  readonly vocabSize: number;
  /** The vocabulary: piece to id, merge to rank. */
  readonly vocab: ClipVocab;
  private readonly special = new Set([START_OF_TEXT, END_OF_TEXT]);
  private readonly cache = new Map<string, number[]>();

  constructor(vocab: ClipVocab) {
    this.vocab = vocab;
    this.startId = this.id(START_OF_TEXT);
    this.endId = this.id(END_OF_TEXT);
    this.vocabSize = vocab.ids.size;
  }

  /** Reads the gzip-compressed merges file (`bpe_simple_vocab_16e6.txt.gz`) at `path`. */
  static fromFile(path: string): ClipTokenizer {
    return new ClipTokenizer(readClipVocab(path));
  }

  /** The ids of `text`, without the start and end tokens. */
  encode(text: string): number[] {
    const ids: number[] = [];
    for (const token of preTokens(cleanText(text))) {
      const mapped = toByteChars(token);
      let pieces = this.cache.get(mapped);
      if (pieces === undefined) {
        pieces = bpe(mapped, this.vocab.ranks, this.special).map((piece) => this.id(piece));
        if (this.cache.size < 100_000) this.cache.set(mapped, pieces);
      }
      for (const id of pieces) ids.push(id);
    }
    return ids;
  }

  /**
   * `[start, ...encode(text), end]`, padded with 0 to `contextLength`; a longer one is cut to
   * `contextLength` with the end token last (as dinov3's tokenizer does).
   */
  tokenize(text: string, contextLength = CONTEXT_LENGTH): Int32Array {
    if (!Number.isInteger(contextLength) || contextLength < 2) {
      throw new TextError('context_length', `context length ${contextLength}: give an integer of 2 or more`, { param: 'contextLength' });
    }
    const ids = [this.startId, ...this.encode(text), this.endId];
    const row = new Int32Array(contextLength);
    row.set(ids.length > contextLength ? ids.slice(0, contextLength) : ids);
    row[Math.min(ids.length, contextLength) - 1] = this.endId;
    return row;
  }

  private id(piece: string): number {
    const id = this.vocab.ids.get(piece);
    // every byte character and every merge is in the vocabulary, so a piece without an id is a fault
    if (id === undefined) throw new TextError('vocab_corrupt', `BPE vocabulary has no id for ${JSON.stringify(piece)}`, { kind: 'internal' });
    return id;
  }
}
