/** A refusal of the world model: a shape it cannot run, a model without the LeWM predictor. */
export class WorldModelError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'WorldModelError';
    this.code = code;
  }
}
