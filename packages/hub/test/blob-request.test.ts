// One GET of a blob through undici's dispatcher, against a real loopback HTTP server: every byte reaches
// the sink in order while it holds the sender back, and the bytes sent before a cut reach it too.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBlob } from '../dist/blob-request.js';
import { transientCause } from '../dist/retry.js';

const body = randomBytes(24 << 20);
const cutAt = 5 << 20;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': body.length, 'X-Linked-Etag': '"abc"' });
    if (req.url === '/cut') res.write(body.subarray(0, cutAt), () => res.socket?.destroy());
    else res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** Takes every chunk, waiting 2 ms on one chunk in eight as a slow disk would; what it took and how often it waited. */
function slowSink() {
  const taken: Buffer[] = [];
  let waits = 0;
  const sink = (chunk: Buffer) => {
    taken.push(Buffer.from(chunk));
    if (taken.length % 8 !== 0) return undefined;
    waits++;
    return sleep(2);
  };
  return { sink, taken, waits: () => waits };
}

describe('a blob GET', () => {
  it('hands every byte to the sink in order, holding the socket while the sink waits', async () => {
    const response = await getBlob(`${url}/whole`, {});
    expect(response.status).toBe(200);
    expect(response.header('X-Linked-Etag')).toBe('"abc"');
    const { sink, taken, waits } = slowSink();
    await response.pipeTo(sink);
    expect(waits()).toBeGreaterThan(0);
    expect(Buffer.concat(taken).equals(body)).toBe(true);
  });

  it('hands on the bytes sent before a cut, then fails with a cause worth another try', async () => {
    const response = await getBlob(`${url}/cut`, {});
    // the cut comes before anything is read: what had arrived is held, not dropped with the failure
    await sleep(300);
    const { sink, taken } = slowSink();
    const failure = await response.pipeTo(sink).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(transientCause(failure)).toBeDefined();
    expect(Buffer.concat(taken).equals(body.subarray(0, cutAt))).toBe(true);
  });

  it('a sink that throws stops the body and fails with its error', async () => {
    const response = await getBlob(`${url}/whole`, {});
    let calls = 0;
    const failure = await response
      .pipeTo(() => {
        if (++calls === 3) throw new Error('disk gone');
        return undefined;
      })
      .catch((err: unknown) => err);
    expect((failure as Error).message).toBe('disk gone');
    expect(calls).toBe(3);
    // the connection pool is not left with a stalled request: the next GET is answered
    const next = await getBlob(`${url}/whole`, {});
    let bytes = 0;
    await next.pipeTo((chunk) => {
      bytes += chunk.length;
      return undefined;
    });
    expect(bytes).toBe(body.length);
  });
});
