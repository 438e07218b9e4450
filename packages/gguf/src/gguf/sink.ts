import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GgufError } from '../errors.js';

/** Where a GgufWriter's bytes go: a file written under a temporary name, or memory (tests, fuzzing). */
export interface Sink {
  write(bytes: Uint8Array): void;
  /** Completes the output; returns the bytes for an in-memory sink. */
  close(): Uint8Array | undefined;
  abort(): void;
}

export class FileSink implements Sink {
  readonly tempPath: string;
  private fd: number;

  constructor(readonly path: string) {
    this.tempPath = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
    try {
      this.fd = openSync(this.tempPath, 'wx');
    } catch (e) {
      throw new GgufError('GGUF_IO', `cannot create '${this.tempPath}': ${(e as Error).message}`);
    }
  }

  write(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.byteLength) done += writeSync(this.fd, bytes, done, bytes.byteLength - done);
  }

  close(): undefined {
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(this.tempPath, this.path);
    return undefined;
  }

  abort(): void {
    try {
      closeSync(this.fd);
    } finally {
      rmSync(this.tempPath, { force: true });
    }
  }
}

export class MemorySink implements Sink {
  private chunks: Uint8Array[] = [];

  write(bytes: Uint8Array): void {
    this.chunks.push(bytes.slice());
  }

  close(): Uint8Array {
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }

  abort(): void {
    this.chunks = [];
  }
}
