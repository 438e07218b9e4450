import { itemFailure } from '../errors.js';
import { Dropped } from '../queue/dropped.js';

/**
 * Compute on items already checked: a refusal of the engine's packages is the caller's, naming the
 * field (a token id names `target` or `context`); anything else is passed on as internal.
 */
export async function computeOnItems<T>(field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Dropped) throw err;
    if (err instanceof Error && /\b(target|context) token id\b/.test(err.message))
      throw itemFailure(/\btarget token id\b/.test(err.message) ? 'target' : 'context', err);
    throw itemFailure(field, err);
  }
}
