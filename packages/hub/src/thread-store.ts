// A large file's store on a thread of its own: the blocks are written and hashed there, so that neither
// slows the thread that receives them. At most BACKLOG_BYTES wait there; beyond it the download waits.
import * as threads from 'node:worker_threads';
import { type BlobStore, etagHash } from './blob-store.js';
import { diskFailure } from './disk-failure.js';
import { HubError } from './errors.js';
import type { RemoteFile } from './remote-file.js';
import type { CallFailure, StoreJob, StoreMessage, StoreReply } from './store-worker.js';

// Node 21's; @types/node 20 does not declare it
const { isMarkedAsUntransferable } = threads as unknown as { isMarkedAsUntransferable: (o: object) => boolean };

/** Whether `c` is the whole of an ArrayBuffer that can be moved to another thread (not a view into a pool). */
const ownsBuffer = (c: Uint8Array) =>
  c.byteOffset === 0 && c.buffer instanceof ArrayBuffer && c.byteLength === c.buffer.byteLength && !isMarkedAsUntransferable(c.buffer);

/** At most this many bytes handed to the thread and not yet written: beyond it the download waits (a disk or a CPU slower than the network). */
export const BACKLOG_BYTES = 16 << 20;

interface Waiter {
  go: () => void;
  fail: (err: Error) => void;
}

type Answer = Exclude<StoreReply, { appended: number }>;

export class ThreadStore implements BlobStore {
  readonly #worker: threads.Worker;
  #backlog = 0;
  #open = false;
  readonly #drained: Waiter[] = [];
  /** Who gets each block handed over back, in the order they were handed over. */
  readonly #lenders: ((block: Buffer) => void)[] = [];
  readonly #answers: { done: (reply: Answer) => void; fail: (err: Error) => void }[] = [];
  /** The thread's end, or the first failed write since begin. */
  #failure: Promise<Error> | undefined;
  #threadFailure: Error | undefined;

  constructor(
    file: RemoteFile,
    private readonly path: string,
  ) {
    const job: StoreJob = { path, ...etagHash(file) };
    this.#worker = new threads.Worker(new URL('./store-worker.js', import.meta.url), { workerData: job });
    this.#worker.on('message', (reply: StoreReply) => {
      if (!('appended' in reply)) return this.#answers.shift()?.done(reply);
      this.#lenders.shift()?.(Buffer.from(reply.block.buffer, reply.block.byteOffset, reply.block.byteLength));
      this.#backlog -= reply.block.byteLength;
      if (reply.failure && !this.#failure) this.#failure = this.#diskFailure(reply.failure);
      if (this.#backlog > BACKLOG_BYTES && !this.#failure) return;
      for (const waiter of this.#drained.splice(0)) waiter.go();
    });
    this.#worker.on('error', (err) => {
      this.#threadFailure = err;
      for (const waiter of this.#drained.splice(0)) waiter.fail(err);
      for (const answer of this.#answers.splice(0)) answer.fail(err);
    });
  }

  /** Bytes handed to the thread and not yet written. */
  get backlog(): number {
    return this.#backlog;
  }

  #diskFailure(failure: CallFailure): Promise<Error> {
    const err = Object.assign(new Error(failure.message), { code: failure.code });
    return diskFailure(err, this.path);
  }

  #ask(m: StoreMessage): Promise<Answer> {
    if (this.#threadFailure) return Promise.reject(this.#threadFailure);
    return new Promise((done, fail) => {
      this.#answers.push({ done, fail });
      this.#worker.postMessage(m);
    });
  }

  async begin(from: number): Promise<void> {
    this.#failure = undefined;
    const reply = await this.#ask({ begin: from });
    this.#open = true;
    if ('failure' in reply && reply.failure) throw await this.#diskFailure(reply.failure);
  }

  /** The thread borrows the block's memory when it owns it; waits while the thread is BACKLOG_BYTES behind, fails once a write did. */
  append(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> | undefined {
    if (this.#threadFailure) return Promise.reject(this.#threadFailure);
    if (this.#failure) return this.#failure.then((err) => Promise.reject(err));
    let moved: Uint8Array = block;
    if (ownsBuffer(block)) this.#lenders.push(recycle);
    else {
      moved = block.slice(0, bytes);
      recycle(block);
      this.#lenders.push(() => {});
    }
    this.#backlog += moved.byteLength;
    this.#worker.postMessage({ append: moved, bytes } satisfies StoreMessage, [moved.buffer as ArrayBuffer]);
    if (this.#backlog <= BACKLOG_BYTES) return undefined;
    return new Promise<void>((go, fail) => {
      this.#drained.push({ go, fail });
    }).then(() => (this.#failure ? this.#failure.then((err) => Promise.reject(err)) : undefined));
  }

  async end(): Promise<number> {
    if (!this.#open) return 0;
    this.#open = false;
    const reply = await this.#ask({ end: true });
    if ('failure' in reply && reply.failure) throw await this.#diskFailure(reply.failure);
    return 'ended' in reply ? reply.ended : 0;
  }

  async hex(size: number): Promise<string> {
    const reply = await this.#ask({ digest: size });
    if ('unreadable' in reply) throw new HubError('HUB_IO', `cannot hash what was downloaded: ${reply.unreadable}`);
    return 'hex' in reply ? reply.hex : '';
  }

  async close(): Promise<void> {
    await this.end().catch(() => {});
    await this.#worker.terminate();
  }
}
