/** A refusal of the engine: an input it cannot run, a budget exceeded, a mismatched device. */
export class GraphError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'GraphError';
    this.code = code;
  }
}
