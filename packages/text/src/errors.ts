import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Stable machine-readable reasons the tokenizer refused its vocabulary or a call. */
export type TextErrorCode = 'vocab_missing' | 'vocab_corrupt' | 'vocab_io' | 'context_length';

const KIND_OF: Partial<Record<TextErrorCode, ErrorKind>> = {
  vocab_missing: 'not_found',
  vocab_io: 'io',
};

/** A refusal of the BPE vocabulary file or of a tokenizer call: one line, the user's to fix. */
export class TextError extends JepaError {
  declare readonly code: TextErrorCode;

  constructor(code: TextErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}
