// How each front end reports a kind. One table each, so that a kind means the same everywhere.
import type { ErrorKind } from './jepa-error.js';

/** The CLI's exit status: 2 for anything the user can fix, 1 for a fault of the engine. */
export const EXIT_CODE: Readonly<Record<ErrorKind, number>> = {
  input: 2,
  not_found: 2,
  forbidden: 2,
  budget: 2,
  busy: 2,
  timeout: 2,
  cancelled: 2,
  unavailable: 2,
  io: 2,
  internal: 1,
};

/** The HTTP status (499 is nginx's "client closed request"). */
export const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  input: 400,
  not_found: 404,
  forbidden: 403,
  budget: 400,
  busy: 429,
  timeout: 504,
  cancelled: 499,
  unavailable: 503,
  io: 500,
  internal: 500,
};
