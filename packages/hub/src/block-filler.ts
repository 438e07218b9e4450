// A download's chunks copied into blocks of a fixed size, each full block appended to the blob's store.
// A copy, because the chunks are views of the HTTP client's socket buffers, which it may still read, so
// only a copy can be moved to the store's thread. The store gives the blocks back to be filled again:
// a fresh 1 MiB buffer per block costs more than the copy.
import type { BlobStore } from './blob-store.js';

export class BlockFiller {
  #block: Buffer | undefined;
  #filled = 0;
  readonly #free: Buffer[] = [];
  readonly #recycle = (block: Buffer) => {
    if (block.length === this.blockBytes) this.#free.push(block);
  };

  constructor(
    private readonly store: BlobStore,
    private readonly blockBytes: number,
  ) {}

  /** Copies `chunk` in; the store's promise when it filled a block, to wait for before the next chunk. */
  push(chunk: Uint8Array): Promise<void> | undefined {
    let wait: Promise<void> | undefined;
    for (let at = 0; at < chunk.length; ) {
      this.#block ??= this.#free.pop() ?? Buffer.allocUnsafeSlow(this.blockBytes);
      const n = Math.min(this.blockBytes - this.#filled, chunk.length - at);
      this.#block.set(chunk.subarray(at, at + n), this.#filled);
      this.#filled += n;
      at += n;
      if (this.#filled === this.blockBytes) wait = this.#handOn();
    }
    return wait;
  }

  /** Appends the last, partial block, then ends the store: the bytes appended, or the first failure to write them. */
  async end(): Promise<number> {
    const last = this.#handOn();
    // the store's end is queued after the last block, so it waits for it and fails as it did; both are
    // awaited at once, so that neither rejection goes unhandled while the other is pending
    const [, appended] = await Promise.all([last?.catch(() => {}), this.store.end()]);
    return appended;
  }

  #handOn(): Promise<void> | undefined {
    const block = this.#block;
    const bytes = this.#filled;
    this.#block = undefined;
    this.#filled = 0;
    if (block === undefined) return undefined;
    return this.store.append(block, bytes, this.#recycle);
  }
}
