// A file's etag computed as its bytes are written (sha256 for LFS, git's blob id otherwise), so a
// finished download is not read again; after a resume it first reads what is already on disk.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { RemoteFile } from './remote-file.js';

export class BlobDigest {
  #hash!: Hash;
  #bytes = 0;

  constructor(private readonly file: RemoteFile) {
    this.#reset();
  }

  #reset(): void {
    this.#hash = createHash(this.file.lfs ? 'sha256' : 'sha1');
    if (!this.file.lfs) this.#hash.update(`blob ${this.file.size}\0`);
    this.#bytes = 0;
  }

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
    this.#bytes += chunk.length;
  }

  /** Makes the digest that of the first `size` bytes of `path`, reading them when it is not already. */
  async catchUp(path: string, size: number): Promise<void> {
    if (this.#bytes === size) return;
    this.#reset();
    if (size === 0) return;
    for await (const chunk of createReadStream(path, { end: size - 1 })) this.update(chunk as Buffer);
  }

  hex(): string {
    return this.#hash.copy().digest('hex');
  }
}
