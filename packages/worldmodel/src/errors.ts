import { JepaError, type ErrorKind } from '@jepa/errors';

export type WorldModelErrorCode = 'BAD_INPUT' | 'NO_ACTION_STATS' | 'NO_PREDICTOR' | 'OVER_BUDGET';

const KINDS: Partial<Record<WorldModelErrorCode, ErrorKind>> = { OVER_BUDGET: 'budget' };

/** A refusal of the world model: a shape it cannot run, a model without the predictor it needs. */
export class WorldModelError extends JepaError {
  declare readonly code: WorldModelErrorCode;

  constructor(code: WorldModelErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options, KINDS);
  }
}
