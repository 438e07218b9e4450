import { JepaError, type ErrorKind } from '@jepa/errors';

export type GraphErrorCode =
  | 'BAD_INPUT'
  | 'BAD_OPTION'
  | 'DEVICE_MISMATCH'
  | 'DISPOSED'
  | 'MISSING_TENSOR'
  | 'NON_FINITE'
  | 'NO_CLS'
  | 'NO_HEAD'
  | 'NO_PREDICTOR'
  | 'NO_TEXT'
  | 'OFF_GRID'
  | 'OVER_BUDGET'
  | 'TIMEOUT'
  | 'UNSUPPORTED'
  | 'UNSUPPORTED_INPUT_SIZE';

/** The codes that are not the caller's input to fix; every other code is kind 'input'. */
const KINDS: Partial<Record<GraphErrorCode, ErrorKind>> = { OVER_BUDGET: 'budget', TIMEOUT: 'timeout', DISPOSED: 'unavailable' };

/** The part of a predictor's input a refusal is about: its context or its target token ids. */
export type InputPart = 'context' | 'target';

export interface GraphErrorOptions {
  cause?: unknown;
  /** Which part of the input is at fault, where the input has parts (a front end names its field). */
  part?: InputPart;
}

/** A refusal of the engine: an input it cannot run, a budget exceeded, a mismatched device, a disposed model. */
export class GraphError extends JepaError {
  declare readonly code: GraphErrorCode;
  readonly part: InputPart | null;

  constructor(code: GraphErrorCode, message: string, options: GraphErrorOptions = {}) {
    super(code, message, { cause: options.cause }, KINDS);
    this.part = options.part ?? null;
  }
}
