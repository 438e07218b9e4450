import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Every code a NativeError carries: thrown by the addon's C++ (`fail(env, CODE, …)`) or by this package. */
export type NativeErrorCode =
  // refusals of what the caller passed: arguments, shapes, types, byte ranges, the files it names
  | 'BAD_ARGUMENT'
  | 'BAD_SHAPE'
  | 'BAD_TYPE'
  | 'OUT_OF_RANGE'
  | 'GGUF'
  | 'IO'
  // a setting or request this build or machine cannot meet
  | 'BAD_OPTION'
  | 'UNSUPPORTED'
  | 'UNSUPPORTED_OP'
  | 'NO_DEVICE'
  | 'BACKEND_INIT'
  | 'NOT_BUILT'
  // limits
  | 'OUT_OF_MEMORY'
  | 'DEADLINE'
  // misuse of the binding by the engine itself
  | 'DISPOSED'
  | 'BUSY'
  | 'NO_DATA'
  | 'NOT_CONTIGUOUS'
  | 'NOT_REPACKABLE'
  | 'ALREADY_ALLOCATED'
  | 'NOT_ALLOCATED'
  | 'NOTHING_TO_ALLOCATE'
  | 'MISALIGNED'
  | 'CONTEXT_FULL'
  | 'NO_BUFFER_TYPE'
  // ggml itself failed
  | 'COMPUTE'
  | 'NATIVE';

/** What each code means to a front end; a code not listed is the caller's input ('input'). */
const KIND_OF: Partial<Record<NativeErrorCode, ErrorKind>> = {
  IO: 'io',
  NO_DEVICE: 'not_found',
  BACKEND_INIT: 'unavailable',
  NOT_BUILT: 'unavailable',
  OUT_OF_MEMORY: 'budget',
  DEADLINE: 'timeout',
  DISPOSED: 'internal',
  // the engine computes each graph from one caller at a time: a second compute is its own fault
  BUSY: 'internal',
  NO_DATA: 'internal',
  NOT_CONTIGUOUS: 'internal',
  NOT_REPACKABLE: 'internal',
  ALREADY_ALLOCATED: 'internal',
  NOT_ALLOCATED: 'internal',
  NOTHING_TO_ALLOCATE: 'internal',
  MISALIGNED: 'internal',
  CONTEXT_FULL: 'internal',
  NO_BUFFER_TYPE: 'internal',
  COMPUTE: 'internal',
  NATIVE: 'internal',
};

/** A failure inside the native binding: a refused shape, a disposed object, a compute error. */
export class NativeError extends JepaError {
  declare readonly code: NativeErrorCode;
  /** `DEADLINE`: the nodes that had run, of the graph's nodeCount, and the timeout that passed. */
  declare readonly nodesDone?: number;
  declare readonly nodeCount?: number;
  declare readonly timeoutMs?: number;

  constructor(code: NativeErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}

/**
 * What the addon calls as `new make(message, code)` for each failure: the C++ keeps the argument
 * order NativeError had before JepaError, so this turns it around. A plain function called with
 * `new` gives the object it returns.
 */
export function nativeErrorFromAddon(message: string, code: string): NativeError {
  return new NativeError(code as NativeErrorCode, message);
}
