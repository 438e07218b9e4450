import { GraphError } from '@jepa/graph';
import { itemFailure } from '../errors.js';
import { Dropped } from '../queue/dropped.js';

/**
 * Compute on items already checked: a refusal of the engine's packages is the caller's, naming the
 * field (a token id off the grid names its part, `target` or `context`); anything else is passed on as internal.
 */
export async function computeOnItems<T>(field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Dropped) throw err;
    if (err instanceof GraphError && err.part) throw itemFailure(err.part, err);
    throw itemFailure(field, err);
  }
}
