// A download's body appended to its `.incomplete` file in blocks: the chunks as they came, written by
// one writev (not copied into one buffer first), one block in flight while the next is received. A
// failed write is the disk's (diskFailure), never a network failure to retry.
import type { FileHandle } from 'node:fs/promises';
import { diskFailure } from './disk-failure.js';

export class BlockWriter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #inflight: Promise<void> = Promise.resolve();
  #written = 0;

  constructor(
    private readonly out: FileHandle,
    private readonly path: string,
    private readonly blockBytes: number,
    /** Given each block's chunks once they are written (the writer keeps no reference to them); the next block waits for what it returns. */
    private readonly onWritten: (chunks: Uint8Array[]) => Promise<void> | undefined,
  ) {}

  /** Bytes written so far by this writer. */
  get written(): number {
    return this.#written;
  }

  /** Queues `chunk`; waits only when a full block is ready and the last one is still being written. */
  async push(chunk: Uint8Array): Promise<void> {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    if (this.#pendingBytes >= this.blockBytes) await this.#flush();
  }

  /** Writes what is queued and waits for every write (after a cut too, so that the next try resumes after it). */
  async end(): Promise<void> {
    await this.#flush();
    await this.#inflight;
  }

  async #flush(): Promise<void> {
    const chunks = this.#pending;
    const bytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    // the last block's failure, if any, is thrown here
    await this.#inflight;
    if (bytes === 0) return;
    this.#inflight = this.#write(chunks, bytes);
    // observed by the next flush or by end(), not an unhandled rejection meanwhile
    this.#inflight.catch(() => {});
  }

  async #write(chunks: Uint8Array[], bytes: number): Promise<void> {
    try {
      const done = (await this.out.writev(chunks)).bytesWritten;
      // a short write (a disk filling up): the rest until it goes in or the disk refuses it
      if (done < bytes) {
        const rest = Buffer.concat(chunks, bytes).subarray(done);
        for (let at = 0; at < rest.length; ) at += (await this.out.write(rest, at)).bytesWritten;
      }
    } catch (err) {
      throw await diskFailure(err, this.path);
    }
    this.#written += bytes;
    await this.onWritten(chunks);
  }
}
