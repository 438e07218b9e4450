// The digest thread's entry: hashes a download's `.incomplete` file as it grows, from the blocks the
// main thread hands over once they are written (their memory moved there and back, not copied), so that hashing
// (about 0.6 CPU s/GB) does not slow the thread that receives them; after a resume, the prefix already
// on disk is read back first. A read that fails (the file started over or was removed under it) is
// reported only if no reset follows it.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

export interface DigestJob {
  path: string;
  algorithm: 'sha256' | 'sha1';
  /** Hashed before the file's bytes (git's `blob <size>\0` for a file kept in git). */
  header: string;
}

/**
 * readUpTo: hash the file's bytes from what is hashed up to this offset; written: the next bytes of the
 * file, as written; reset: the file starts over; digest: answer the hex of what is hashed.
 */
export type DigestMessage = { readUpTo: number } | { written: Uint8Array; bytes: number } | { reset: true } | { digest: true };
/** hashed: the bytes of one `written` message, now hashed (or dropped after a failure), and its block given back; the others answer `digest`. */
export type DigestReply = { hashed: number; block: Uint8Array } | { hex: string; bytes: number } | { error: string };

const port = parentPort;
if (port === null) throw new Error('digest-worker.js runs as a worker thread');
const job = workerData as DigestJob;
const block = Buffer.allocUnsafe(1 << 20);
let hash: Hash;
let at = 0;
let failure: string | undefined;

function reset(): void {
  hash = createHash(job.algorithm);
  hash.update(job.header);
  at = 0;
  failure = undefined;
}

function readUpTo(end: number): void {
  const fd = openSync(job.path, 'r');
  try {
    while (at < end) {
      const n = readSync(fd, block, 0, Math.min(block.length, end - at), at);
      if (n === 0) throw new Error(`${job.path} ends at ${at} bytes, before ${end}`);
      hash.update(block.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

reset();
port.on('message', (m: DigestMessage) => {
  if ('reset' in m) reset();
  else if ('digest' in m) port.postMessage(failure === undefined ? { hex: hash.copy().digest('hex'), bytes: at } : { error: failure });
  else if ('written' in m) {
    if (failure === undefined) hash.update(m.written.subarray(0, m.bytes));
    at += m.bytes;
    port.postMessage({ hashed: m.bytes, block: m.written } satisfies DigestReply, [m.written.buffer as ArrayBuffer]);
  } else if (failure !== undefined) return;
  else if (m.readUpTo > at) {
    try {
      readUpTo(m.readUpTo);
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
  }
});
