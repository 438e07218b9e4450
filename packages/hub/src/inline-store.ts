// A small file's store on the calling thread: each block written to the `.incomplete` file, then hashed.
// Starting a thread (about 35 ms) would cost more than it saves.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { type BlobStore, etagHash } from './blob-store.js';
import { diskFailure } from './disk-failure.js';
import type { RemoteFile } from './remote-file.js';

export class InlineStore implements BlobStore {
  #hash!: Hash;
  #hashed = 0;
  #out: FileHandle | undefined;
  #appended = 0;
  #inflight: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: RemoteFile,
    private readonly path: string,
  ) {
    this.#reset();
  }

  #reset(): void {
    const { algorithm, header } = etagHash(this.file);
    this.#hash = createHash(algorithm).update(header);
    this.#hashed = 0;
  }

  async #catchUp(size: number): Promise<void> {
    if (this.#hashed === size) return;
    this.#reset();
    if (size === 0) return;
    for await (const chunk of createReadStream(this.path, { end: size - 1 })) {
      this.#hash.update(chunk as Buffer);
      this.#hashed += (chunk as Buffer).length;
    }
  }

  async begin(from: number): Promise<void> {
    await this.#catchUp(from);
    this.#out = await open(this.path, from > 0 ? 'a' : 'w').catch(async (err: unknown) => {
      throw await diskFailure(err, this.path);
    });
    this.#appended = 0;
  }

  /** Queued after the block before, which it returns: the caller waits while one block is being written. */
  append(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> {
    const before = this.#inflight;
    this.#inflight = before.then(() => this.#write(block, bytes, recycle));
    // observed by the next append or by end(), not an unhandled rejection meanwhile
    this.#inflight.catch(() => {});
    return before;
  }

  async #write(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> {
    const out = this.#out;
    if (out === undefined) throw new Error('a blob store appends between begin() and end()');
    try {
      // a short write (a disk filling up): the rest until it goes in or the disk refuses it
      for (let done = 0; done < bytes; ) done += (await out.write(block, done, bytes - done)).bytesWritten;
    } catch (err) {
      throw await diskFailure(err, this.path);
    }
    this.#hash.update(block.subarray(0, bytes));
    this.#hashed += bytes;
    this.#appended += bytes;
    recycle(block);
  }

  async end(): Promise<number> {
    try {
      await this.#inflight;
    } finally {
      this.#inflight = Promise.resolve();
      await this.#out?.close();
      this.#out = undefined;
    }
    return this.#appended;
  }

  async hex(size: number): Promise<string> {
    await this.#catchUp(size);
    return this.#hash.copy().digest('hex');
  }

  async close(): Promise<void> {
    await this.end().catch(() => {});
  }
}
