// A download's body appended to its `.incomplete` file in blocks of a fixed size, one block being written
// while the next is filled. The chunks are copied into the blocks: they are views of the HTTP client's
// socket buffers, which it may still read, so only a copy can be moved to the digest thread. The blocks
// come back once hashed and are filled again, as a fresh 1 MiB buffer per block costs more than the copy.
// A failed write is the disk's (diskFailure), never a network failure to retry.
import type { FileHandle } from 'node:fs/promises';
import { diskFailure } from './disk-failure.js';

/** Told of each block once it is written: its first `bytes` are the file's next bytes; `recycle` gives the block back. */
export type BlockSink = (block: Buffer, bytes: number, recycle: (block: Buffer) => void) => Promise<void> | undefined;

export class BlockWriter {
  #block: Buffer | undefined;
  #filled = 0;
  readonly #free: Buffer[] = [];
  #inflight: Promise<void> = Promise.resolve();
  #written = 0;
  readonly #recycle = (block: Buffer) => {
    if (block.length === this.blockBytes) this.#free.push(block);
  };

  constructor(
    private readonly out: FileHandle,
    private readonly path: string,
    private readonly blockBytes: number,
    /** The next block's write waits for what it returns. */
    private readonly onWritten: BlockSink,
  ) {}

  /** Bytes written so far by this writer. */
  get written(): number {
    return this.#written;
  }

  /** Copies `chunk` in; a promise when it filled a block, to wait for while the block before is still being written. */
  push(chunk: Uint8Array): Promise<void> | undefined {
    let wait: Promise<void> | undefined;
    for (let at = 0; at < chunk.length; ) {
      this.#block ??= this.#free.pop() ?? Buffer.allocUnsafeSlow(this.blockBytes);
      const n = Math.min(this.blockBytes - this.#filled, chunk.length - at);
      this.#block.set(chunk.subarray(at, at + n), this.#filled);
      this.#filled += n;
      at += n;
      if (this.#filled === this.blockBytes) wait = this.#flush();
    }
    return wait;
  }

  /** Writes what is filled and waits for every write (after a cut too, so that the next try resumes after it). */
  async end(): Promise<void> {
    this.#flush();
    await this.#inflight;
  }

  /** Queues the block's write after the one in flight; returns that one, which fails if it did. */
  #flush(): Promise<void> {
    const block = this.#block;
    const bytes = this.#filled;
    this.#block = undefined;
    this.#filled = 0;
    const before = this.#inflight;
    if (block === undefined || bytes === 0) return before;
    this.#inflight = before.then(() => this.#write(block, bytes));
    // observed by the next flush or by end(), not an unhandled rejection meanwhile
    this.#inflight.catch(() => {});
    return before;
  }

  async #write(block: Buffer, bytes: number): Promise<void> {
    try {
      // a short write (a disk filling up): the rest until it goes in or the disk refuses it
      for (let done = 0; done < bytes; ) done += (await this.out.write(block, done, bytes - done)).bytesWritten;
    } catch (err) {
      throw await diskFailure(err, this.path);
    }
    this.#written += bytes;
    await this.onWritten(block, bytes, this.#recycle);
  }
}
