import { ConvertError } from '../../errors.js';

export const SIG_END = 0x06054b50;
export const SIG_ZIP64_END = 0x06064b50;
export const SIG_ZIP64_LOCATOR = 0x07064b50;
export const ZIP64_EXTRA_ID = 0x0001;
export const END_RECORD_SIZE = 22;
export const MAX_COMMENT = 0xffff;

/** Little-endian field reads over a byte range, each bounds-checked against the range. */
export class RecordReader {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private check(at: number, size: number): void {
    if (at < 0 || at + size > this.bytes.byteLength) {
      throw new ConvertError('ZIP_BAD_RECORD', `${this.what}: record field at ${at} runs past its ${this.bytes.byteLength}-byte record`);
    }
  }

  u16(at: number): number {
    this.check(at, 2);
    return this.view.getUint16(at, true);
  }

  u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at, true);
  }

  u64(at: number): number {
    this.check(at, 8);
    const value = this.view.getBigUint64(at, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new ConvertError('ZIP_BAD_RECORD', `${this.what}: 64-bit field ${value} at ${at} is too large`);
    return Number(value);
  }

  slice(at: number, length: number): Uint8Array {
    this.check(at, length);
    return this.bytes.subarray(at, at + length);
  }
}
