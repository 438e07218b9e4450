import { readSync } from 'node:fs';
import { V8_MAX_STRING_LENGTH } from '../budgets.js';
import { GgufError } from '../errors.js';

/** Random access to the bytes of a file or buffer, so the reader never needs the whole file in memory. */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes at `position`; the caller has checked the range against `size`. */
  read(position: number, length: number): Uint8Array;
  /** Optional: fills `target` with the bytes at `position`, so a cursor can reuse one window buffer. */
  readInto?(position: number, target: Uint8Array): void;
}

export function bufferSource(buffer: Uint8Array): ByteSource {
  return { size: buffer.byteLength, read: (position, length) => buffer.subarray(position, position + length) };
}

export function fdSource(fd: number, size: number): ByteSource {
  const readInto = (position: number, out: Uint8Array): void => {
    const length = out.byteLength;
    let done = 0;
    while (done < length) {
      const n = readSync(fd, out, done, length - done, position + done);
      if (n === 0) throw new GgufError('GGUF_IO', `file ended at byte ${position + done} while reading the header`);
      done += n;
    }
  };
  return {
    size,
    read(position, length) {
      const out = new Uint8Array(length);
      readInto(position, out);
      return out;
    },
    readInto,
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
  /** One reused window buffer, where the source can fill it (a file); else each window is what `read` returns. */
  private readonly scratch: Uint8Array | null;

  constructor(private readonly source: ByteSource) {
    this.scratch = source.readInto ? new Uint8Array(WINDOW) : null;
  }

  get size(): number {
    return this.source.size;
  }

  remaining(): number {
    return this.source.size - this.pos;
  }

  truncated(n: number, what: string, at = this.pos): GgufError {
    return new GgufError(
      'GGUF_TRUNCATED',
      `${what} needs ${n} bytes at offset ${at} but the file has ${Math.max(0, this.size - at)} left (size ${this.size})`,
    );
  }

  /** Makes [at, at+n) part of the window (n ≤ remaining is checked by the caller). */
  private fill(at: number, n: number): void {
    const len = Math.min(Math.max(n, WINDOW), this.size - at);
    if (this.scratch !== null && len <= WINDOW) {
      const w = this.scratch.subarray(0, len);
      this.source.readInto!(at, w);
      this.window = w;
    } else {
      this.window = this.source.read(at, len);
    }
    this.windowStart = at;
    this.view = new DataView(this.window.buffer, this.window.byteOffset, this.window.byteLength);
  }

  /** Bytes [pos, pos+n) as a view valid until the next read; refuses to run past the end. */
  private take(n: number, what: string): { bytes: Uint8Array; view: DataView; at: number } {
    if (n > this.remaining()) throw this.truncated(n, what);
    const rel = this.pos - this.windowStart;
    if (rel < 0 || rel + n > this.window.byteLength) this.fill(this.pos, n);
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

  /**
   * The next n bytes in a buffer of their own (byteOffset 0, exactly n long), so a typed array can wrap it: one
   * copy of the file's bytes, never three.
   */
  ownedBytes(n: number, what: string): Uint8Array {
    if (n > this.remaining()) throw this.truncated(n, what);
    if (n <= WINDOW) {
      const r = this.take(n, what);
      return r.bytes.slice(r.at, r.at + n);
    }
    let out = this.source.read(this.pos, n);
    if (out.byteOffset !== 0 || out.buffer.byteLength !== n) out = out.slice();
    this.pos += n;
    return out;
  }

  /** Moves past n bytes without reading them. */
  skip(n: number, what: string): void {
    if (n > this.remaining()) throw this.truncated(n, what);
    this.pos += n;
  }

  /** A GGUF string's u64 length, refused above `maxLength` before anything else is read. */
  stringLength(what: string, maxLength: number): number {
    const len = this.u64(`${what} length`);
    if (len > BigInt(maxLength)) {
      throw new GgufError('GGUF_BAD_STRING', `${what} has length ${len}, above the limit ${maxLength}`);
    }
    return Number(len);
  }

  /** The n UTF-8 bytes of a string whose length has been read. */
  stringBody(n: number, what: string): string {
    if (n > V8_MAX_STRING_LENGTH) {
      throw new GgufError('GGUF_BAD_STRING', `${what} is a string of ${n} bytes; V8 cannot hold a string above ${V8_MAX_STRING_LENGTH} characters`);
    }
    const r = this.take(n, what);
    try {
      return UTF8.decode(r.bytes.subarray(r.at, r.at + n));
    } catch (e) {
      if (e instanceof TypeError) {
        throw new GgufError('GGUF_BAD_STRING', `${what} at offset ${this.pos - n} is not valid UTF-8`);
      }
      throw new GgufError('GGUF_BAD_STRING', `${what} of ${n} bytes cannot be decoded: ${(e as Error).message}`);
    }
  }

  /** A GGUF string: u64 length then UTF-8 bytes; the length is checked against the bytes left before anything is read. */
  string(what: string, maxLength: number): string {
    return this.stringBody(this.stringLength(what, maxLength), what);
  }

  /**
   * Walks past `count` strings reading only their lengths (8 bytes each): a hostile array of 10^8 empty strings
   * costs one pass over the file and no JS object. Returns the bytes walked.
   */
  skipStrings(count: number, maxLength: number, what: string): number {
    const first = this.pos;
    const size = this.size;
    let pos = this.pos;
    let i = 0;
    while (i < count) {
      if (pos + 8 > size) throw this.truncated(8, `${what}[${i}] length`, pos);
      let rel = pos - this.windowStart;
      if (rel < 0 || rel + 8 > this.window.byteLength) {
        this.fill(pos, 8);
        rel = 0;
      }
      // the hot loop: lengths read byte-wise from the window into locals, until the window runs out
      const buf = this.window;
      const last = buf.byteLength - 8;
      let r = rel;
      let lastLength = 0;
      let bad = false;
      while (i < count && r <= last) {
        const lo = buf[r] | (buf[r + 1] << 8) | (buf[r + 2] << 16) | (buf[r + 3] << 24);
        if (lo < 0 || lo > maxLength || (buf[r + 4] | buf[r + 5] | buf[r + 6] | buf[r + 7]) !== 0) {
          bad = true;
          break;
        }
        r += 8 + lo;
        lastLength = lo;
        i++;
      }
      pos += r - rel;
      if (bad) {
        const len = new DataView(buf.buffer, buf.byteOffset + r, 8).getBigUint64(0, true);
        throw new GgufError('GGUF_BAD_STRING', `${what}[${i}] has length ${len}, above the limit ${maxLength}`);
      }
      if (pos > size) throw this.truncated(lastLength, `${what}[${i - 1}]`, pos - lastLength);
    }
    this.pos = pos;
    return pos - first;
  }

  skipTo(position: number, what: string): void {
    if (position > this.size) {
      throw new GgufError('GGUF_TRUNCATED', `${what} starts at ${position}, past the end of the file (size ${this.size})`);
    }
    this.pos = position;
  }
}
