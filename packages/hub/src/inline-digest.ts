// A small file's etag computed on the calling thread as its blocks are written; after a resume it
// reads the prefix already on disk first.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type BlobDigest, etagHash } from './blob-digest.js';
import type { RemoteFile } from './remote-file.js';

export class InlineDigest implements BlobDigest {
  #hash!: Hash;
  #bytes = 0;

  constructor(
    private readonly file: RemoteFile,
    private readonly path: string,
  ) {
    this.#reset();
  }

  #reset(): void {
    const { algorithm, header } = etagHash(this.file);
    this.#hash = createHash(algorithm).update(header);
    this.#bytes = 0;
  }

  written(block: Buffer, bytes: number, recycle?: (block: Buffer) => void): undefined {
    this.#hash.update(block.subarray(0, bytes));
    this.#bytes += bytes;
    recycle?.(block);
  }

  async catchUp(size: number): Promise<void> {
    if (this.#bytes === size) return;
    this.#reset();
    if (size === 0) return;
    for await (const chunk of createReadStream(this.path, { end: size - 1 })) this.written(chunk as Buffer, (chunk as Buffer).length);
  }

  async hex(size: number): Promise<string> {
    await this.catchUp(size);
    return this.#hash.copy().digest('hex');
  }

  async close(): Promise<void> {}
}
