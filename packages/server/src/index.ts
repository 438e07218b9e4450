export { createServer, type JepaServer, type ServerOptions } from './server.js';
export { ApiError, type ErrorBody, type ErrorType } from './errors.js';
export { jsonDepth, MAX_JSON_DEPTH } from './json.js';
export { float32Base64 } from './encoding.js';
