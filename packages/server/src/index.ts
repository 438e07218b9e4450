export { createServer, type JepaServer, type ServerOptions } from './server.js';
export { ApiError, type ErrorBody, type ErrorType } from './errors.js';
export { PathPolicy, isWithin } from './paths.js';
export { jsonDepth, MAX_JSON_DEPTH } from './json.js';
export { decodeBase64, float32Base64 } from './encoding.js';
export type { ModelCard } from './server-context.js';
