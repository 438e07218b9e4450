/**
 * What kind of failure an error is, which decides how every front end reports it: the CLI's exit
 * status, the HTTP status, whether MCP marks a tool result as the caller's error.
 * - input: the request or file is wrong (a bad field, a corrupt image, a refused checkpoint);
 * - not_found: it names something that is not there (a model id, a file);
 * - forbidden: it names something it may not use (a path outside the allowed folders);
 * - budget: valid, but past a limit (a graph over its memory budget, an image too large to decode);
 * - busy: a queue is full; retrying later may work;
 * - timeout: a deadline passed;
 * - cancelled: the caller went away or aborted;
 * - unavailable: the engine cannot take work now (loading, shutting down, a model failed to load);
 * - io: the file system or a child process failed (a full disk, ffmpeg missing);
 * - internal: a fault of the engine itself.
 */
export type ErrorKind = 'input' | 'not_found' | 'forbidden' | 'budget' | 'busy' | 'timeout' | 'cancelled' | 'unavailable' | 'io' | 'internal';

export const ERROR_KINDS: readonly ErrorKind[] = [
  'input',
  'not_found',
  'forbidden',
  'budget',
  'busy',
  'timeout',
  'cancelled',
  'unavailable',
  'io',
  'internal',
];

export interface JepaErrorOptions {
  cause?: unknown;
  /** Default: 'input' (most refusals are about what the caller gave). */
  kind?: ErrorKind;
  /** The request field or flag the refusal is about (`input[2].image`, `top_k`, `--pool`), or null. */
  param?: string | null;
}

/** The base of every error a jepa package raises on purpose: `(code, message, { cause, kind, param })`. */
export class JepaError extends Error {
  /** Stable and machine-readable (`GGUF_TRUNCATED`, `OVER_BUDGET`, `corrupt_image`, ...). */
  readonly code: string;
  readonly kind: ErrorKind;
  readonly param: string | null;

  /**
   * `kinds`: a subclass's table of what its codes mean. The kind is the one given, else the table's,
   * else 'input'.
   */
  constructor(code: string, message: string, options: JepaErrorOptions = {}, kinds: Readonly<Partial<Record<string, ErrorKind>>> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.kind = options.kind ?? kinds[code] ?? 'input';
    this.param = options.param ?? null;
  }
}

export function isJepaError(err: unknown): err is JepaError {
  return err instanceof JepaError;
}

/** The kind of any thrown value: a JepaError's own, else internal. */
export function errorKind(err: unknown): ErrorKind {
  return err instanceof JepaError ? err.kind : 'internal';
}

/** Whether the failure is the caller's to fix (everything but internal). */
export function isUserFacing(err: unknown): err is JepaError {
  return err instanceof JepaError && err.kind !== 'internal';
}
