import { open, type FileHandle } from 'node:fs/promises';
import { ConvertError } from '../errors.js';

/**
 * A file read by position only: nothing is buffered beyond the range asked for, so reading
 * one tensor touches only that tensor's bytes.
 */
export class RandomAccessFile {
  private handle: FileHandle | null;

  private constructor(
    readonly path: string,
    handle: FileHandle,
    readonly size: number,
  ) {
    this.handle = handle;
  }

  static async open(path: string): Promise<RandomAccessFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (cause) {
      throw new ConvertError('CONVERT_IO', `cannot open ${path}: ${(cause as Error).message}`, { cause });
    }
    const stat = await handle.stat();
    return new RandomAccessFile(path, handle, stat.size);
  }

  /** Reads exactly `length` bytes at `position` into a fresh, 8-byte aligned buffer. */
  async read(position: number, length: number): Promise<Uint8Array> {
    if (this.handle === null) throw new ConvertError('CONVERT_CLOSED', `${this.path} is closed`);
    if (!Number.isSafeInteger(position) || !Number.isSafeInteger(length) || position < 0 || length < 0 || position + length > this.size) {
      throw new ConvertError(
        'CONVERT_TRUNCATED',
        `${this.path}: range [${position}, ${position + length}) lies outside the file (${this.size} bytes)`,
      );
    }
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(out, done, length - done, position + done);
      if (bytesRead === 0) throw new ConvertError('CONVERT_TRUNCATED', `${this.path}: file ended at ${position + done} while reading`);
      done += bytesRead;
    }
    return out;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }
}
