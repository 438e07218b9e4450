// Every refusal the server sends, in OpenAI's error shape: {error: {message, type, param, code}}.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error';

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400 about one field of the request: the message starts with the field's path. */
export function badField(field: string, problem: string, code = 'invalid_value'): ApiError {
  return new ApiError(400, 'invalid_request_error', code, `${field}: ${problem}`, field);
}

export const notFound = (message: string, code: string, param: string | null = null) => new ApiError(404, 'not_found_error', code, message, param);

export const unavailable = (message: string, code: string) => new ApiError(503, 'server_error', code, message, null, { 'retry-after': '1' });

export const timedOut = (ms: number) => new ApiError(504, 'server_error', 'timeout', `the request was not done within ${ms} ms (--timeout-ms)`);

/** Errors of the engine's packages that describe the input, not a fault of the server. */
const INPUT_ERRORS = new Set(['PreprocessError', 'GraphError', 'WorldModelError', 'GgufError']);

export function isInputError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && INPUT_ERRORS.has(err.name) && typeof (err as { code?: unknown }).code === 'string';
}

/** Codes the engine uses for an input that needs more memory than a graph may take. */
const TOO_LARGE = new Set(['OVER_BUDGET', 'image_too_large', 'resize_too_large']);

/** An error raised while working on `field` (an item, an id list): the user's when the engine says so. */
export function inputFailure(field: string, err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isInputError(err)) return badField(field, err.message, TOO_LARGE.has(err.code) ? 'input_too_large' : 'invalid_input');
  return internal(err);
}

export function internal(err: unknown): ApiError {
  const e = new ApiError(500, 'server_error', 'internal_error', 'internal server error');
  (e as { cause?: unknown }).cause = err;
  return e;
}

interface FastifyLikeError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/** Fastify's own refusals (body size, content type, malformed bodies) in the OpenAI shape. */
export function fromFastify(err: FastifyLikeError): ApiError | null {
  const code = typeof err.code === 'string' ? err.code : '';
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'invalid_request_error', 'body_too_large', 'body: larger than the limit (--max-body-mb)', 'body');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'body: send JSON with Content-Type: application/json', 'body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badField('body', 'its length does not match Content-Length (truncated?)', 'invalid_body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badField('body', 'empty; send a JSON object', 'invalid_json');
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message = typeof err.message === 'string' && err.message ? err.message : 'bad request';
    return new ApiError(status, 'invalid_request_error', 'invalid_request', message);
  }
  return null;
}
