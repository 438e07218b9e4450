import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Stable machine-readable reasons an index refused a request or could not be used. */
export type SearchErrorCode =
  | 'index_missing'
  | 'index_corrupt'
  | 'index_model'
  | 'index_dimension'
  | 'index_text'
  | 'row_unknown'
  | 'query_kind'
  | 'threshold'
  | 'top_k'
  | 'index_io';

const KIND_OF: Partial<Record<SearchErrorCode, ErrorKind>> = {
  index_missing: 'not_found',
  row_unknown: 'not_found',
  index_io: 'io',
};

/** A refusal of an index or of a query against it: the user's to fix, printed as one line. */
export class SearchError extends JepaError {
  declare readonly code: SearchErrorCode;

  constructor(code: SearchErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}
