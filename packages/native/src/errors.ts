/** A failure inside the native binding: a refused shape, a disposed object, a compute error. */
export class NativeError extends Error {
  /** Stable machine-readable reason, e.g. `BAD_SHAPE`, `DISPOSED`, `UNSUPPORTED_OP`, `OUT_OF_MEMORY`. */
  readonly code: string;
  /** `DEADLINE`: the nodes that had run, of the graph's nodeCount, and the timeout that passed. */
  declare readonly nodesDone?: number;
  declare readonly nodeCount?: number;
  declare readonly timeoutMs?: number;

  constructor(message: string, code = 'NATIVE') {
    super(message);
    this.name = 'NativeError';
    this.code = code;
  }
}
