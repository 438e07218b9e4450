// Slow clients against the request timeout: a socket that drips its headers (or its body) a byte at a
// time and never reads is closed by the server within the timeout plus a bound, while a client that
// reads gets its 408 and a well-behaved request is served meanwhile.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CLOSE_GRACE_MS } from '../src/http/client-error.js';
import { demo, get, startServer } from './helpers.js';

const TIMEOUT_MS = 1000; // the least the server takes (its request timeout is max(timeoutMs, 1000))
const CHECK_MS = 1000; // how often node checks the request and header deadlines (connectionsCheckingInterval)
const SLACK_MS = 2000; // a loaded machine

interface Drip {
  closedAfterMs: Promise<number>;
  received: () => string;
}

/** Opens a socket, writes `head`, then one byte every 250 ms until the server closes it. */
function drip(port: number, head: string, read: boolean): Drip {
  const socket: Socket = connect(port, '127.0.0.1');
  const opened = performance.now();
  const got: Buffer[] = [];
  socket.on('error', () => {}); // the reset or broken pipe of a socket the server destroyed
  // a slowloris client never reads: no data listener, so it never sees the server's FIN as an end
  if (read) socket.on('data', (d) => got.push(d));
  socket.write(head);
  const timer = setInterval(() => {
    if (socket.writable) socket.write('a');
  }, 250);
  const closedAfterMs = new Promise<number>((done) =>
    socket.once('close', () => {
      clearInterval(timer);
      done(performance.now() - opened);
    }),
  );
  // never past the test: a socket the server leaves open is closed here after 15 s (and fails the bound)
  const guard = setTimeout(() => socket.destroy(), 15_000);
  void closedAfterMs.then(() => clearTimeout(guard));
  return { closedAfterMs, received: () => Buffer.concat(got).toString('latin1') };
}

const HEADERS = 'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nX-Slow: ';
const BODY = 'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"input":';

describe('slowloris', () => {
  it('sockets that drip headers or a body and never read are closed within the request timeout plus a bound; a reading one gets 408; others are served', async () => {
    const server = await startServer({ models: [demo], timeoutMs: TIMEOUT_MS });
    try {
      const headers = drip(server.port, HEADERS, false);
      const body = drip(server.port, BODY, false);
      const reader = drip(server.port, HEADERS, true);
      // meanwhile the server answers a well-behaved request
      await new Promise((d) => setTimeout(d, 300));
      expect((await get(server, '/health')).status).toBe(200);

      const bound = TIMEOUT_MS + CHECK_MS + CLOSE_GRACE_MS + SLACK_MS;
      const [h, b, r] = await Promise.all([headers.closedAfterMs, body.closedAfterMs, reader.closedAfterMs]);
      for (const ms of [h, b, r]) {
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50); // closed by the timeout, not at once
        expect(ms).toBeLessThan(bound);
      }
      // the client that reads sees the refusal and closes on the server's FIN, without waiting for the grace
      expect(reader.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(reader.received()).toContain('"request_timeout"');
      expect(r).toBeLessThan(TIMEOUT_MS + CHECK_MS + SLACK_MS);
      expect((await get(server, '/health')).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 30_000);
});
