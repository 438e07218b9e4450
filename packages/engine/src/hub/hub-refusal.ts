// A refusal of @jepa/hub (the Hub, the caches) or of the converter while a model named `hf:` was
// pulled, as the engine's: its kind kept, its code in the engine's lower case, about the `model` field.
import { isUserFacing } from '@jepa/errors';
import { EngineError } from '../errors.js';

export function hubRefusal(err: unknown): unknown {
  if (err instanceof EngineError || !isUserFacing(err)) return err;
  return new EngineError(err.code.toLowerCase(), err.message, { kind: err.kind, param: 'model', retryAfter: null, cause: err });
}
