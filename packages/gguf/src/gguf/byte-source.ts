import { readSync } from 'node:fs';
import { GgufError } from '../errors.js';

/** Random access to the bytes of a file or buffer, so the reader never needs the whole file in memory. */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes at `position`; the caller has checked the range against `size`. */
  read(position: number, length: number): Uint8Array;
}

export function bufferSource(buffer: Uint8Array): ByteSource {
  return { size: buffer.byteLength, read: (position, length) => buffer.subarray(position, position + length) };
}

export function fdSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(position, length) {
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, out, done, length - done, position + done);
        if (n === 0) throw new GgufError('GGUF_IO', `file ended at byte ${position + done} while reading the header`);
        done += n;
      }
      return out;
    },
  };
}

const WINDOW = 64 * 1024;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A forward cursor with a read-ahead window over a ByteSource; every read is checked against the source size. */
export class Cursor {
  pos = 0;
  private window: Uint8Array = new Uint8Array(0);
  private windowStart = 0;
  private view = new DataView(this.window.buffer);

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  remaining(): number {
    return this.source.size - this.pos;
  }

  /** Bytes [pos, pos+n) as a view valid until the next read; refuses to run past the end. */
  private take(n: number, what: string): { bytes: Uint8Array; view: DataView; at: number } {
    if (n > this.remaining()) {
      throw new GgufError(
        'GGUF_TRUNCATED',
        `${what} needs ${n} bytes at offset ${this.pos} but the file has ${this.remaining()} left (size ${this.size})`,
      );
    }
    const rel = this.pos - this.windowStart;
    if (rel < 0 || rel + n > this.window.byteLength) {
      const len = Math.min(Math.max(n, WINDOW), this.remaining());
      this.window = this.source.read(this.pos, len);
      this.windowStart = this.pos;
      this.view = new DataView(this.window.buffer, this.window.byteOffset, this.window.byteLength);
    }
    const at = this.pos - this.windowStart;
    this.pos += n;
    return { bytes: this.window, view: this.view, at };
  }

  u8(what: string): number {
    const r = this.take(1, what);
    return r.view.getUint8(r.at);
  }
  i8(what: string): number {
    const r = this.take(1, what);
    return r.view.getInt8(r.at);
  }
  u16(what: string): number {
    const r = this.take(2, what);
    return r.view.getUint16(r.at, true);
  }
  i16(what: string): number {
    const r = this.take(2, what);
    return r.view.getInt16(r.at, true);
  }
  u32(what: string): number {
    const r = this.take(4, what);
    return r.view.getUint32(r.at, true);
  }
  i32(what: string): number {
    const r = this.take(4, what);
    return r.view.getInt32(r.at, true);
  }
  u64(what: string): bigint {
    const r = this.take(8, what);
    return r.view.getBigUint64(r.at, true);
  }
  i64(what: string): bigint {
    const r = this.take(8, what);
    return r.view.getBigInt64(r.at, true);
  }
  f32(what: string): number {
    const r = this.take(4, what);
    return r.view.getFloat32(r.at, true);
  }
  f64(what: string): number {
    const r = this.take(8, what);
    return r.view.getFloat64(r.at, true);
  }

  /** A copy of the next n bytes. */
  bytes(n: number, what: string): Uint8Array {
    const r = this.take(n, what);
    const out = new Uint8Array(n);
    out.set(r.bytes.subarray(r.at, r.at + n));
    return out;
  }

  /** A GGUF string: u64 length then UTF-8 bytes; the length is checked against the bytes left before anything is read. */
  string(what: string, maxLength: number): string {
    const len = this.u64(`${what} length`);
    if (len > BigInt(maxLength)) {
      throw new GgufError('GGUF_BAD_STRING', `${what} has length ${len}, above the limit ${maxLength}`);
    }
    const n = Number(len);
    const r = this.take(n, what);
    try {
      return UTF8.decode(r.bytes.subarray(r.at, r.at + n));
    } catch {
      throw new GgufError('GGUF_BAD_STRING', `${what} at offset ${this.pos - n} is not valid UTF-8`);
    }
  }

  skipTo(position: number, what: string): void {
    if (position > this.size) {
      throw new GgufError('GGUF_TRUNCATED', `${what} starts at ${position}, past the end of the file (size ${this.size})`);
    }
    this.pos = position;
  }
}
