// Every refusal the server sends, in OpenAI's error shape: {error: {message, type, param, code}}.
import { EngineError } from '@jepa/engine';
import { type ErrorKind, HTTP_STATUS, JepaError } from '@jepa/errors';

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

/** 400 about one field of the request (the body itself, before the engine sees it). */
export function badField(field: string, problem: string, code = 'invalid_value'): ApiError {
  return new ApiError(400, 'invalid_request_error', code, `${field}: ${problem}`, field);
}

export const notFound = (message: string, code: string, param: string | null = null) => new ApiError(404, 'not_found_error', code, message, param);

export const unavailable = (message: string, code: string) => new ApiError(503, 'server_error', code, message, null, { 'retry-after': '1' });

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
 * Any error a route raised, in the OpenAI shape: the engine's refusals by their kind (the status from
 * @jepa/errors' one table), the server's own as they are, anything else a 500 that keeps its cause.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if ((err instanceof EngineError || (err instanceof JepaError && err.param !== null)) && err.kind !== 'internal') {
    const retryAfter = err instanceof EngineError ? err.retryAfter : null;
    const headers: Record<string, string> = retryAfter === null ? {} : { 'retry-after': String(retryAfter) };
    return new ApiError(HTTP_STATUS[err.kind], TYPE_OF_KIND[err.kind], err.code, err.message, err.param, headers);
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
