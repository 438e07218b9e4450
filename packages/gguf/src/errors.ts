import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Every refusal of this package. `code` is stable; the message names the key or tensor and the bound. */
export type GgufErrorCode =
  // container (reader / writer)
  | 'GGUF_IO'
  | 'GGUF_TRUNCATED'
  | 'GGUF_BAD_MAGIC'
  | 'GGUF_BAD_VERSION'
  | 'GGUF_BAD_COUNT'
  | 'GGUF_BAD_STRING'
  | 'GGUF_BAD_KEY'
  | 'GGUF_DUPLICATE_KEY'
  | 'GGUF_BAD_VALUE_TYPE'
  | 'GGUF_ARRAY_TOO_LONG'
  | 'GGUF_NESTING_TOO_DEEP'
  | 'GGUF_BAD_ALIGNMENT'
  | 'GGUF_BAD_TENSOR_NAME'
  | 'GGUF_DUPLICATE_TENSOR'
  | 'GGUF_BAD_DIMS'
  | 'GGUF_BAD_TENSOR_TYPE'
  | 'GGUF_BAD_BLOCK'
  | 'GGUF_TENSOR_TOO_LARGE'
  | 'GGUF_TENSOR_OFFSET'
  | 'GGUF_TENSOR_OUT_OF_FILE'
  | 'GGUF_TENSOR_SIZE'
  | 'GGUF_BAD_LIMIT'
  | 'GGUF_WRITE_STATE'
  | 'GGUF_WRITE_SIZE'
  // jepa.* schema
  | 'JEPA_ARCH'
  | 'JEPA_FAMILY'
  | 'JEPA_SCHEMA_VERSION'
  | 'JEPA_KEY_MISSING'
  | 'JEPA_KEY_UNKNOWN'
  | 'JEPA_KEY_UNUSED'
  | 'JEPA_KEY_TYPE'
  | 'JEPA_RANGE'
  | 'JEPA_BUDGET'
  | 'JEPA_NOT_FINITE'
  | 'JEPA_ENUM'
  | 'JEPA_INVARIANT'
  | 'JEPA_TENSOR_UNEXPECTED'
  | 'JEPA_TENSOR_DTYPE'
  | 'JEPA_TENSOR_SHAPE'
  | 'JEPA_TENSOR_MISSING';

/** What each code means to a front end; a code not listed is the caller's input ('input'). */
const KIND_OF: Partial<Record<GgufErrorCode, ErrorKind>> = {
  GGUF_IO: 'io',
  JEPA_BUDGET: 'budget',
  // the writer used out of order, or fed the wrong byte count: a fault of the code that writes
  GGUF_WRITE_STATE: 'internal',
  GGUF_WRITE_SIZE: 'internal',
};

export class GgufError extends JepaError {
  declare readonly code: GgufErrorCode;

  constructor(code: GgufErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}

export function isGgufError(e: unknown): e is GgufError {
  return e instanceof GgufError;
}
