// A large file's etag computed on a thread of its own as its blocks are written, so that hashing does
// not slow the thread that receives them; after a resume the thread reads the prefix already there first.
import * as threads from 'node:worker_threads';
import { type BlobDigest, etagHash } from './blob-digest.js';
import { HubError } from './errors.js';
import type { DigestJob, DigestMessage, DigestReply } from './digest-worker.js';
import type { RemoteFile } from './remote-file.js';

// Node 21's; @types/node 20 does not declare it
const { isMarkedAsUntransferable } = threads as unknown as { isMarkedAsUntransferable: (o: object) => boolean };

/** Whether `c` is the whole of an ArrayBuffer that can be moved to another thread (not a view into a pool). */
const ownsBuffer = (c: Uint8Array) =>
  c.byteOffset === 0 && c.buffer instanceof ArrayBuffer && c.byteLength === c.buffer.byteLength && !isMarkedAsUntransferable(c.buffer);

/** At most this many bytes handed to the thread and not yet hashed: beyond it the download waits (a CPU that hashes slower than the network brings). */
export const BACKLOG_BYTES = 16 << 20;

interface Waiter {
  go: () => void;
  fail: (err: Error) => void;
}

export class ThreadDigest implements BlobDigest {
  readonly #worker: threads.Worker;
  /** The bytes of the file the thread was told to hash (it may still be hashing them). */
  #target = 0;
  #backlog = 0;
  readonly #drained: Waiter[] = [];
  /** Who gets each block handed over back, in the order they were handed over. */
  readonly #lenders: ((block: Buffer) => void)[] = [];
  readonly #answers: { done: (reply: DigestReply) => void; fail: (err: Error) => void }[] = [];
  #failure: Error | undefined;

  constructor(file: RemoteFile, path: string) {
    const job: DigestJob = { path, ...etagHash(file) };
    this.#worker = new threads.Worker(new URL('./digest-worker.js', import.meta.url), { workerData: job });
    this.#worker.on('message', (reply: DigestReply) => {
      if (!('hashed' in reply)) return this.#answers.shift()?.done(reply);
      this.#backlog -= reply.hashed;
      this.#lenders.shift()?.(Buffer.from(reply.block.buffer, reply.block.byteOffset, reply.block.byteLength));
      if (this.#backlog > BACKLOG_BYTES) return;
      for (const waiter of this.#drained.splice(0)) waiter.go();
    });
    this.#worker.on('error', (err) => {
      this.#failure = err;
      for (const waiter of this.#drained.splice(0)) waiter.fail(err);
      for (const answer of this.#answers.splice(0)) answer.fail(err);
    });
  }

  /** Bytes handed to the thread and not yet hashed. */
  get backlog(): number {
    return this.#backlog;
  }

  #post(m: DigestMessage): void {
    this.#worker.postMessage(m);
  }

  /** Hashed on the thread, which borrows the block's memory when it owns it; waits while the thread is BACKLOG_BYTES behind. */
  written(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> | undefined {
    let moved: Uint8Array = block;
    if (ownsBuffer(block)) this.#lenders.push(recycle);
    else {
      moved = block.slice(0, bytes);
      recycle(block);
      this.#lenders.push(() => {});
    }
    this.#target += bytes;
    this.#backlog += bytes;
    this.#worker.postMessage({ written: moved, bytes } satisfies DigestMessage, [moved.buffer as ArrayBuffer]);
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#backlog <= BACKLOG_BYTES) return undefined;
    return new Promise((go, fail) => {
      this.#drained.push({ go, fail });
    });
  }

  async catchUp(size: number): Promise<void> {
    if (size === this.#target) return;
    this.#post({ reset: true });
    this.#post({ readUpTo: size });
    this.#target = size;
  }

  async hex(size: number): Promise<string> {
    await this.catchUp(size);
    if (this.#failure) throw this.#failure;
    const reply = await new Promise<DigestReply>((done, fail) => {
      this.#answers.push({ done, fail });
      this.#post({ digest: true });
    });
    if ('error' in reply) throw new HubError('HUB_IO', `cannot hash what was downloaded: ${reply.error}`);
    return 'hex' in reply ? reply.hex : '';
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
