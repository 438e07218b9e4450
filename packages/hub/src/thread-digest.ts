// A large file's etag computed on a thread of its own as its blocks are written, so that hashing does
// not slow the thread that receives them; after a resume the thread reads the prefix already there first.
import { once } from 'node:events';
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

export class ThreadDigest implements BlobDigest {
  readonly #worker: threads.Worker;
  /** The bytes of the file the thread was told to hash (it may still be hashing them). */
  #target = 0;

  constructor(file: RemoteFile, path: string) {
    const job: DigestJob = { path, ...etagHash(file) };
    this.#worker = new threads.Worker(new URL('./digest-worker.js', import.meta.url), { workerData: job });
  }

  #post(m: DigestMessage): void {
    this.#worker.postMessage(m);
  }

  /** Hashed on the thread, which takes the chunks' memory when they own it. */
  written(chunks: Uint8Array[]): void {
    const moved = chunks.map((c) => (ownsBuffer(c) ? c : c.slice()));
    for (const c of moved) this.#target += c.length;
    this.#worker.postMessage(
      { written: moved } satisfies DigestMessage,
      moved.map((c) => c.buffer as ArrayBuffer),
    );
  }

  async catchUp(size: number): Promise<void> {
    if (size === this.#target) return;
    this.#post({ reset: true });
    this.#post({ readUpTo: size });
    this.#target = size;
  }

  async hex(size: number): Promise<string> {
    await this.catchUp(size);
    this.#post({ digest: true });
    // rejects if the thread fails
    const [reply] = (await once(this.#worker, 'message')) as [DigestReply];
    if ('error' in reply) throw new HubError('HUB_IO', `cannot hash what was downloaded: ${reply.error}`);
    return reply.hex;
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
