export { ERROR_KINDS, JepaError, errorKind, isJepaError, isUserFacing, type ErrorKind, type JepaErrorOptions } from './jepa-error.js';
export { EXIT_CODE, HTTP_STATUS } from './front-ends.js';
