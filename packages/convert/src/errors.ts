import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Every refusal of the converter. `code` is stable; the message names the file, tensor or global refused. */
export type ConvertErrorCode =
  | 'CONVERT_IO'
  | 'CONVERT_CLOSED'
  | 'CONVERT_UNKNOWN_FORMAT'
  | 'CONVERT_LEGACY_TORCH_FORMAT'
  | 'CONVERT_NO_CHECKPOINT'
  | 'CONVERT_TRUNCATED'
  | 'CONVERT_UNKNOWN_DTYPE'
  | 'CONVERT_UNSUPPORTED_DTYPE'
  | 'CONVERT_BAD_SHAPE'
  | 'CONVERT_TENSOR_TOO_LARGE'
  | 'SAFETENSORS_HEADER_TOO_LARGE'
  | 'SAFETENSORS_HEADER_OUT_OF_FILE'
  | 'SAFETENSORS_BAD_HEADER'
  | 'SAFETENSORS_BAD_METADATA'
  | 'SAFETENSORS_BAD_ENTRY'
  | 'SAFETENSORS_SIZE_MISMATCH'
  | 'SAFETENSORS_OFFSETS_OUT_OF_DATA'
  | 'SAFETENSORS_OFFSETS_OVERLAP'
  | 'SAFETENSORS_OFFSETS_GAP'
  | 'SAFETENSORS_BAD_INDEX'
  | 'SAFETENSORS_SHARD_MISMATCH'
  | 'ZIP_NO_END_RECORD'
  | 'ZIP_BAD_RECORD'
  | 'ZIP_ENTRY_OUT_OF_FILE'
  | 'ZIP_ENCRYPTED'
  | 'ZIP_UNSUPPORTED_COMPRESSION'
  | 'ZIP_INFLATE_FAILED'
  | 'ZIP_ENTRY_TOO_LARGE'
  | 'ZIP_CRC_MISMATCH'
  | 'ZIP_HEADER_MISMATCH'
  | 'ZIP_BAD_NAME'
  | 'ZIP_MISSING_ENTRY'
  | 'PICKLE_TRUNCATED'
  | 'PICKLE_UNSUPPORTED_PROTOCOL'
  | 'PICKLE_UNSUPPORTED_OPCODE'
  | 'PICKLE_FORBIDDEN_GLOBAL'
  | 'PICKLE_STACK'
  | 'PICKLE_MEMO'
  | 'PICKLE_BAD_CALL'
  | 'PICKLE_NO_PERSISTENT_LOAD'
  | 'TORCH_NO_DATA_PKL'
  | 'TORCH_BIG_ENDIAN'
  | 'TORCH_BAD_PERSISTENT_ID'
  | 'TORCH_MISSING_STORAGE'
  | 'TORCH_STORAGE_SIZE'
  | 'TORCH_TENSOR_OUT_OF_STORAGE'
  | 'STATE_DICT_NOT_FOUND'
  | 'STATE_DICT_NAME_COLLISION'
  | 'CONVERT_UNKNOWN_FAMILY'
  | 'CONVERT_BAD_CONFIG'
  | 'CONVERT_MISSING_TENSOR'
  | 'CONVERT_UNMAPPED_TENSORS'
  | 'CONVERT_SHAPE_MISMATCH'
  | 'CONVERT_NONFINITE'
  | 'CONVERT_BAD_OPTION';

/** What each code means to a front end; a code not listed is the caller's input ('input'). */
const KIND_OF: Partial<Record<ConvertErrorCode, ErrorKind>> = {
  CONVERT_IO: 'io',
  // valid, but past the bytes one read may take, or JEPA_MAX_ZIP_ENTRY_MIB
  CONVERT_TENSOR_TOO_LARGE: 'budget',
  ZIP_ENTRY_TOO_LARGE: 'budget',
  // a read after close: a fault of the converter, not of the checkpoint
  CONVERT_CLOSED: 'internal',
};

export class ConvertError extends JepaError {
  declare readonly code: ConvertErrorCode;

  constructor(code: ConvertErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}
