// Every refusal the server sends, in OpenAI's error shape: {error: {message, type, param, code}}. A
// JepaError (the engine's, the index's, the routes' own through the engine's badField, notFound and
// unavailable) is answered by its kind, through @jepa/errors' one table; only what has no kind (the
// key, the body's size and type, malformed HTTP) is an ApiError from the start.
import { badField } from '@jepa/engine';
import { type ErrorKind, HTTP_STATUS, isUserFacing } from '@jepa/errors';

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

const TYPE_OF_KIND: Readonly<Record<ErrorKind, ErrorType>> = {
  input: 'invalid_request_error',
  budget: 'invalid_request_error',
  not_found: 'not_found_error',
  forbidden: 'permission_error',
  busy: 'rate_limit_error',
  timeout: 'server_error',
  cancelled: 'server_error',
  unavailable: 'server_error',
  io: 'server_error',
  internal: 'server_error',
};

/**
 * Any error a route raised, in the OpenAI shape: a JepaError that is not internal by its kind (the
 * status from @jepa/errors' HTTP_STATUS, the type from TYPE_OF_KIND), with its code, the field it is
 * about and when to retry where it says; an ApiError as it is; anything else a 500 that keeps its cause.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isUserFacing(err)) {
    const { param, retryAfter } = err as { param?: unknown; retryAfter?: unknown };
    const headers: Record<string, string> = typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {};
    return new ApiError(HTTP_STATUS[err.kind], TYPE_OF_KIND[err.kind], err.code, err.message, typeof param === 'string' ? param : null, headers);
  }
  return fromFastify(err as object) ?? internal(err);
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
      return new ApiError(
        415,
        'invalid_request_error',
        'unsupported_media_type',
        'body: send application/json, a raw image/* or video/* body, or multipart/form-data',
        'body',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return toApiError(badField('body', 'its length does not match Content-Length (truncated?)', 'invalid_body'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return toApiError(badField('body', 'empty; send a JSON object', 'invalid_json'));
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message = typeof err.message === 'string' && err.message ? err.message : 'bad request';
    return new ApiError(status, 'invalid_request_error', 'invalid_request', message);
  }
  return null;
}
