import { ConvertError } from '../../errors.js';

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

// Checkpoints hold small ints; decoding a huge LONG4 would be quadratic work for nothing.
const MAX_LONG_BYTES = 1024;

/** A cursor over pickle bytes; every read is bounds-checked so a cut pickle fails cleanly. */
export class PickleInput {
  private readonly view: DataView;
  position = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private take(length: number): number {
    const at = this.position;
    if (!Number.isSafeInteger(length) || length < 0 || at + length > this.bytes.byteLength) {
      throw new ConvertError('PICKLE_TRUNCATED', `pickle: ${length} bytes wanted at ${at}, only ${this.bytes.byteLength - at} left`);
    }
    this.position += length;
    return at;
  }

  u8(): number {
    return this.bytes[this.take(1)];
  }

  u16(): number {
    return this.view.getUint16(this.take(2), true);
  }

  i32(): number {
    return this.view.getInt32(this.take(4), true);
  }

  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }

  u64(): number {
    const value = this.view.getBigUint64(this.take(8), true);
    // Any honest length fits in the pickle itself; a larger one is caught by take().
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  }

  f64BigEndian(): number {
    return this.view.getFloat64(this.take(8), false);
  }

  bytesOf(length: number): Uint8Array {
    const at = this.take(length);
    return this.bytes.slice(at, at + length);
  }

  utf8(length: number): string {
    const at = this.take(length);
    return utf8.decode(this.bytes.subarray(at, at + length));
  }

  latin1(length: number): string {
    const at = this.take(length);
    return latin1.decode(this.bytes.subarray(at, at + length));
  }

  /** A protocol-0 text argument: the bytes up to the next newline. */
  line(): string {
    const end = this.bytes.indexOf(0x0a, this.position);
    if (end < 0) throw new ConvertError('PICKLE_TRUNCATED', `pickle: unterminated text argument at ${this.position}`);
    const text = latin1.decode(this.bytes.subarray(this.position, end));
    this.position = end + 1;
    return text;
  }

  /** Signed little-endian two's-complement integer of `length` bytes (LONG1 / LONG4). */
  signedLittleEndian(length: number): number | bigint {
    if (length > MAX_LONG_BYTES)
      throw new ConvertError('PICKLE_UNSUPPORTED_OPCODE', `pickle: a ${length}-byte integer exceeds the ${MAX_LONG_BYTES}-byte limit`);
    const at = this.take(length);
    if (length === 0) return 0;
    let value = 0n;
    for (let i = length - 1; i >= 0; i--) value = (value << 8n) | BigInt(this.bytes[at + i]);
    if (this.bytes[at + length - 1] & 0x80) value -= 1n << BigInt(8 * length);
    return narrowInteger(value);
  }
}

/** Ints that fit a double exactly become numbers; the rest stay bigints. */
export function narrowInteger(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}
