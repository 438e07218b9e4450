// The store thread's entry: appends a download's blocks to its `.incomplete` file and hashes them, so
// that neither the writes nor the hashing (about 0.6 CPU s/GB) slows the thread that receives them. The
// blocks' memory is moved here and back, not copied. After a resume, the prefix already on disk is read
// back first. A read that fails (the file started over or was removed under it) is reported only if no
// reset follows it; after a failed write, the blocks that follow are given back unwritten.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

export interface StoreJob {
  path: string;
  algorithm: 'sha256' | 'sha1';
  /** Hashed before the file's bytes (git's `blob <size>\0` for a file kept in git). */
  header: string;
}

/** A failed system call, as it crosses to the main thread. */
export interface CallFailure {
  code?: string;
  message: string;
}

/**
 * begin: open the file after its first `begin` bytes (0: start it over), the digest caught up to them;
 * append: write and hash a block's first `bytes`; end: close the file; digest: the hex of the first `digest` bytes.
 */
export type StoreMessage = { begin: number } | { append: Uint8Array; bytes: number } | { end: true } | { digest: number };
/** appended: the bytes of one `append` message written and hashed (0 after a failure), its block given back; the others answer in order. */
export type StoreReply =
  | { appended: number; block: Uint8Array; failure?: CallFailure }
  | { begun: true; failure?: CallFailure }
  | { ended: number; failure?: CallFailure }
  | { hex: string }
  | { unreadable: string };

const port = parentPort;
if (port === null) throw new Error('store-worker.js runs as a worker thread');
const job = workerData as StoreJob;
const readBlock = Buffer.allocUnsafe(1 << 20);
let hash: Hash;
let hashed = 0;
let unreadable: string | undefined;
let fd: number | undefined;
let appended = 0;
let writeFailure: CallFailure | undefined;

const failureOf = (err: unknown): CallFailure => ({
  code: (err as NodeJS.ErrnoException).code,
  message: err instanceof Error ? err.message : String(err),
});

function reset(): void {
  hash = createHash(job.algorithm);
  hash.update(job.header);
  hashed = 0;
  unreadable = undefined;
}

/** Makes the digest that of the file's first `size` bytes, read back from the disk. */
function catchUp(size: number): void {
  if (size === hashed && unreadable === undefined) return;
  reset();
  if (size === 0) return;
  try {
    const input = openSync(job.path, 'r');
    try {
      while (hashed < size) {
        const n = readSync(input, readBlock, 0, Math.min(readBlock.length, size - hashed), hashed);
        if (n === 0) throw new Error(`${job.path} ends at ${hashed} bytes, before ${size}`);
        hash.update(readBlock.subarray(0, n));
        hashed += n;
      }
    } finally {
      closeSync(input);
    }
  } catch (err) {
    unreadable = err instanceof Error ? err.message : String(err);
  }
}

function end(): number {
  if (fd !== undefined) closeSync(fd);
  fd = undefined;
  return appended;
}

reset();
port.on('message', (m: StoreMessage) => {
  if ('begin' in m) {
    end();
    catchUp(m.begin);
    appended = 0;
    writeFailure = undefined;
    try {
      fd = openSync(job.path, m.begin > 0 ? 'a' : 'w');
    } catch (err) {
      writeFailure = failureOf(err);
    }
    port.postMessage({ begun: true, failure: writeFailure } satisfies StoreReply);
  } else if ('append' in m) {
    let written = 0;
    if (writeFailure === undefined && fd !== undefined) {
      const bytes = m.append.subarray(0, m.bytes);
      try {
        // a short write (a disk filling up): the rest until it goes in or the disk refuses it
        while (written < m.bytes) written += writeSync(fd, bytes, written, m.bytes - written);
        hash.update(bytes);
        hashed += m.bytes;
        appended += m.bytes;
      } catch (err) {
        writeFailure = failureOf(err);
        written = 0;
      }
    }
    const reply: StoreReply = { appended: written, block: m.append, failure: writeFailure };
    port.postMessage(reply, [m.append.buffer as ArrayBuffer]);
  } else if ('end' in m) port.postMessage({ ended: end(), failure: writeFailure } satisfies StoreReply);
  else {
    catchUp(m.digest);
    port.postMessage((unreadable === undefined ? { hex: hash.copy().digest('hex') } : { unreadable }) satisfies StoreReply);
  }
});
