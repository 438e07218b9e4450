// A lingering close, as nginx's lingering_close: a refusal sent before the client has finished
// sending its body (a 413) is followed by a close, and closing a socket with unread bytes makes the
// kernel answer with a reset that can destroy the response before the client reads it (Python's
// urllib and requests send the whole body first and only then read, so they saw "connection reset"
// or "broken pipe" instead of the 413). Here the server half-closes after the response and keeps
// reading and discarding until the body has ended, for a bounded time and number of bytes, and only
// then closes.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerBounds {
  /** A body declared longer than this is not waited for: the connection closes at once. */
  maxBytes: number;
  /** The longest the server waits for the rest of the body after its answer. */
  maxMs: number;
}

/**
 * Call before the refusal is sent, with the body not yet read to its end: when node closes the
 * connection after the response (the `destroySoon` of its HTTP server, where the response says
 * `Connection: close`), this socket half-closes and drains instead.
 */
export function lingerAfterRefusal(req: IncomingMessage, bounds: LingerBounds): boolean {
  if (req.complete) return false;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > bounds.maxBytes) return false;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  socket.destroySoon = () => lingeringClose(req, socket, bounds.maxMs);
  return true;
}

function lingeringClose(req: IncomingMessage, socket: Socket, maxMs: number): void {
  // the answer and then our FIN; reading goes on, the parser drops the rest of the body
  socket.end();
  const timer = setTimeout(() => socket.destroy(), maxMs);
  const done = () => {
    clearTimeout(timer);
    setImmediate(() => socket.destroy());
  };
  if (req.complete) done();
  else {
    req.once('end', done);
    req.once('close', () => {
      if (req.complete) done();
    });
  }
  socket.once('close', () => clearTimeout(timer));
  req.resume();
}
