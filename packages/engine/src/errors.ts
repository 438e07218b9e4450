// The engine's refusals: a JepaError with the request field it is about (`param`) and, for a refusal
// that may pass, how many seconds to wait. Front ends turn them into their own shapes by `kind`.
import { JepaError, isUserFacing, type JepaErrorOptions } from '@jepa/errors';

export interface EngineErrorOptions extends JepaErrorOptions {
  /** Seconds after which the same request may succeed (a full queue, a model still loading). */
  retryAfter?: number | null;
}

export class EngineError extends JepaError {
  readonly retryAfter: number | null;

  constructor(code: string, message: string, options: EngineErrorOptions = {}) {
    super(code, message, options);
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** About one field of the request: the message starts with the field's path. */
export function badField(field: string, problem: string, code = 'invalid_value'): EngineError {
  return new EngineError(code, `${field}: ${problem}`, { kind: 'input', param: field });
}

export const notFound = (message: string, code: string, param: string | null = null) => new EngineError(code, message, { kind: 'not_found', param });

export const forbidden = (field: string, message: string, code: string) =>
  new EngineError(code, `${field}: ${message}`, { kind: 'forbidden', param: field });

export const unavailable = (message: string, code: string, retryAfter: number | null = 1) =>
  new EngineError(code, message, { kind: 'unavailable', retryAfter });

/** Codes the engine's packages use for an input that needs more memory than a graph or a decode may take. */
const TOO_LARGE = new Set(['OVER_BUDGET', 'image_too_large', 'resize_too_large']);

/**
 * An error raised while working on `field` (an item, an id list): the caller's, naming the field,
 * when the engine's packages say it is about the input; anything else is passed on as it is (an
 * internal fault, a dropped item, a refusal that already names its field).
 */
export function itemFailure(field: string, err: unknown): unknown {
  if (err instanceof EngineError || !isUserFacing(err) || err.param !== null) return err;
  const tooLarge = err.kind === 'budget' || TOO_LARGE.has(err.code);
  return badField(field, err.message, tooLarge ? 'input_too_large' : 'invalid_input');
}
