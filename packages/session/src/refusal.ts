// A session's refusals: a JepaError about one option or request field (`pool`, `--pool`), which every
// front end reports by its kind and names by its param.
import { JepaError } from '@jepa/errors';

export class SessionError extends JepaError {}

/** About one field or flag: the message starts with its name. */
export function badOption(field: string, problem: string, code = 'invalid_value'): SessionError {
  return new SessionError(code, `${field}: ${problem}`, { kind: 'input', param: field });
}

/** A call on a session after its dispose(): the model is going or gone. */
export function disposedError(): SessionError {
  return new SessionError('DISPOSED', 'the model was disposed', { kind: 'unavailable' });
}
