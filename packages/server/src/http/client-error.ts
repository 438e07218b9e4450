import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';

/**
 * After the refusal and the server's FIN, how long the client has to read them and close its side
 * before the socket is destroyed. Node's HTTP server only half-closes here, so a client that never
 * reads (a slowloris one) never sees the FIN and would hold the connection open for as long as it liked.
 */
export const CLOSE_GRACE_MS = 2000;

/** Malformed HTTP (before fastify has a request): answered in the same error shape, then closed. */
export function clientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'the headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'the request was not received in time']
        : err.code === 'HPE_INVALID_EOF_STATE'
          ? [400, 'Bad Request', 'truncated_body', 'body: the connection ended before Content-Length bytes arrived']
          : [400, 'Bad Request', 'bad_http', 'malformed HTTP request'];
  const body = JSON.stringify(new ApiError(status, 'invalid_request_error', code, message).body());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  socket.once('close', () => clearTimeout(timer));
}
