// Where a download's bytes go: appended to its `.incomplete` file and hashed into its etag (sha256 for
// LFS, git's blob id otherwise) as they are written, so that a finished download is not read again.
// After a resume, the prefix already on disk is read first. A failed write is the disk's (diskFailure),
// never a network failure to retry.
import type { RemoteFile } from './remote-file.js';

export interface BlobStore {
  /** The next bytes go after the file's first `from` (0: the file starts over); the digest is made that of those bytes. */
  begin(from: number): Promise<void>;
  /**
   * Appends the first `bytes` of `block`, then hashes them. The block is the store's until it gives it
   * back through `recycle`. A promise: wait for it before the next.
   */
  append(block: Buffer, bytes: number, recycle: (block: Buffer) => void): Promise<void> | undefined;
  /** Waits for every append and closes the file; the bytes appended since begin, or the first failure to write them. */
  end(): Promise<number>;
  /** The hex digest of the first `size` bytes of the file. */
  hex(size: number): Promise<string>;
  close(): Promise<void>;
}

/** The hash of an etag and what it hashes before the bytes (git's `blob <size>\0` for a file kept in git). */
export function etagHash(file: RemoteFile): { algorithm: 'sha256' | 'sha1'; header: string } {
  return file.lfs ? { algorithm: 'sha256', header: '' } : { algorithm: 'sha1', header: `blob ${file.size}\0` };
}
