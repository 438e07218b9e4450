import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Stable machine-readable reasons a corpus job refused its input or could not go on. */
export type CorpusErrorCode =
  | 'output_format'
  | 'npy_shape'
  | 'write_failed'
  | 'resume_no_index'
  | 'resume_corrupt'
  | 'resume_mismatch'
  | 'resume_changed'
  | 'redis_unreachable'
  | 'queue_name'
  | 'queue_empty'
  | 'queue_exists'
  | 'queue_add'
  | 'queue_unknown'
  | 'queue_unfinished'
  | 'queue_corrupt'
  | 'shard_unreadable'
  | 'shard_short'
  | 'shard_mismatch';

/** What each code means to a front end; a code not listed is the caller's input ('input'). */
const KIND_OF: Partial<Record<CorpusErrorCode, ErrorKind>> = {
  write_failed: 'io',
  shard_unreadable: 'io',
  redis_unreachable: 'unavailable',
  queue_add: 'unavailable',
  queue_unknown: 'not_found',
};

/** Bad input or a failed write in a corpus job: the user's to fix, printed as one line. */
export class CorpusError extends JepaError {
  declare readonly code: CorpusErrorCode;

  constructor(code: CorpusErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}
