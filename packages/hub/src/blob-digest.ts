// A file's etag (sha256 for LFS, git's blob id otherwise) computed on a thread of its own as its
// blocks are written: a finished download is not read again, and after a resume the prefix already
// there is read first.
import { once } from 'node:events';
import * as threads from 'node:worker_threads';
import { HubError } from './errors.js';
import type { DigestJob, DigestMessage, DigestReply } from './digest-worker.js';
import type { RemoteFile } from './remote-file.js';

// Node 21's; @types/node 20 does not declare it
const { isMarkedAsUntransferable } = threads as unknown as { isMarkedAsUntransferable: (o: object) => boolean };

/** Whether `c` is the whole of an ArrayBuffer that can be moved to another thread (not a view into a pool). */
const ownsBuffer = (c: Uint8Array) =>
  c.byteOffset === 0 && c.buffer instanceof ArrayBuffer && c.byteLength === c.buffer.byteLength && !isMarkedAsUntransferable(c.buffer);

export class BlobDigest {
  readonly #worker: threads.Worker;
  /** The bytes of the file the thread was told to hash (it may still be hashing them). */
  #target = 0;

  constructor(file: RemoteFile, path: string) {
    const job: DigestJob = { path, algorithm: file.lfs ? 'sha256' : 'sha1', header: file.lfs ? '' : `blob ${file.size}\0` };
    this.#worker = new threads.Worker(new URL('./digest-worker.js', import.meta.url), { workerData: job });
  }

  #post(m: DigestMessage): void {
    this.#worker.postMessage(m);
  }

  /** `chunks` were appended to the file: hashed on the thread, which takes their memory when they own it. */
  written(chunks: Uint8Array[]): void {
    const moved = chunks.map((c) => (ownsBuffer(c) ? c : c.slice()));
    for (const c of moved) this.#target += c.length;
    this.#worker.postMessage(
      { written: moved } satisfies DigestMessage,
      moved.map((c) => c.buffer as ArrayBuffer),
    );
  }

  /** Makes the digest that of the first `size` bytes of the file: after a resume, or when it starts over. */
  catchUp(size: number): void {
    if (size === this.#target) return;
    this.#post({ reset: true });
    this.#post({ readUpTo: size });
    this.#target = size;
  }

  /** The hex digest of the first `size` bytes of the file. */
  async hex(size: number): Promise<string> {
    this.catchUp(size);
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
