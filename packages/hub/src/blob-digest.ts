// A file's etag (sha256 for LFS, git's blob id otherwise) computed as its blocks are written, so that
// a finished download is not read again; after a resume, the prefix already on disk is read first.
import type { RemoteFile } from './remote-file.js';

export interface BlobDigest {
  /**
   * The first `bytes` of `block` were appended to the file; the block is the digest's until it gives it back
   * through `recycle` (once hashed). A promise: wait for it before the next.
   */
  written(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> | undefined;
  /** Makes the digest that of the first `size` bytes of the file: after a resume, or when it starts over. */
  catchUp(size: number): Promise<void>;
  /** The hex digest of the first `size` bytes of the file. */
  hex(size: number): Promise<string>;
  close(): Promise<void>;
}

/** The hash of an etag and what it hashes before the bytes (git's `blob <size>\0` for a file kept in git). */
export function etagHash(file: RemoteFile): { algorithm: 'sha256' | 'sha1'; header: string } {
  return file.lfs ? { algorithm: 'sha256', header: '' } : { algorithm: 'sha1', header: `blob ${file.size}\0` };
}
