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
  | 'OFF_GRID'
  | 'OVER_BUDGET'
  | 'TIMEOUT'
  | 'UNSUPPORTED'
  | 'UNSUPPORTED_INPUT_SIZE';

/** The codes that are not the caller's input to fix; every other code is kind 'input'. */
const KINDS: Partial<Record<GraphErrorCode, ErrorKind>> = { OVER_BUDGET: 'budget', TIMEOUT: 'timeout', DISPOSED: 'unavailable' };

/** A refusal of the engine: an input it cannot run, a budget exceeded, a mismatched device, a disposed model. */
export class GraphError extends JepaError {
  declare readonly code: GraphErrorCode;

  constructor(code: GraphErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options, KINDS);
  }
}
