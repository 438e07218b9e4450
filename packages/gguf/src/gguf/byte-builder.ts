import { GgufError } from '../errors.js';
import { GGUF_SCALAR_SIZE, GGUF_VALUE_TAGS, type GgufArray, type GgufValue } from './value.js';

const UTF8 = new TextEncoder();

/**
 * A growable little-endian byte buffer for the header (metadata and tensor-info table).
 * Each write reserves first: reserve() may replace buf and view.
 */
export class ByteBuilder {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private reserve(n: number): number {
    if (this.length + n > this.buf.byteLength) {
      let cap = this.buf.byteLength * 2;
      while (cap < this.length + n) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(v: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, v);
  }
  i8(v: number): void {
    const at = this.reserve(1);
    this.view.setInt8(at, v);
  }
  u16(v: number): void {
    const at = this.reserve(2);
    this.view.setUint16(at, v, true);
  }
  i16(v: number): void {
    const at = this.reserve(2);
    this.view.setInt16(at, v, true);
  }
  u32(v: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, v, true);
  }
  i32(v: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, v, true);
  }
  f32(v: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, v, true);
  }
  f64(v: number): void {
    const at = this.reserve(8);
    this.view.setFloat64(at, v, true);
  }
  u64(v: bigint): void {
    const at = this.reserve(8);
    this.view.setBigUint64(at, v, true);
  }
  i64(v: bigint): void {
    const at = this.reserve(8);
    this.view.setBigInt64(at, v, true);
  }
  raw(bytes: Uint8Array): void {
    const at = this.reserve(bytes.byteLength);
    this.buf.set(bytes, at);
  }
  zeros(n: number): void {
    const at = this.reserve(n);
    this.buf.fill(0, at, this.length);
  }

  string(s: string): void {
    const bytes = UTF8.encode(s);
    this.u64(BigInt(bytes.byteLength));
    this.raw(bytes);
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** Writes the type tag and the value of one metadata entry. */
  value(key: string, v: GgufValue): void {
    this.u32(GGUF_VALUE_TAGS[v.type]);
    if (v.type === 'array') this.array(key, v);
    else this.scalar(key, v);
  }

  private scalar(key: string, v: Exclude<GgufValue, GgufArray>): void {
    switch (v.type) {
      case 'u8':
        this.u8(checkInt(key, v.value, 0, 0xff));
        return;
      case 'i8':
        this.i8(checkInt(key, v.value, -0x80, 0x7f));
        return;
      case 'u16':
        this.u16(checkInt(key, v.value, 0, 0xffff));
        return;
      case 'i16':
        this.i16(checkInt(key, v.value, -0x8000, 0x7fff));
        return;
      case 'u32':
        this.u32(checkInt(key, v.value, 0, 0xffffffff));
        return;
      case 'i32':
        this.i32(checkInt(key, v.value, -0x80000000, 0x7fffffff));
        return;
      case 'f32':
        this.f32(v.value);
        return;
      case 'f64':
        this.f64(v.value);
        return;
      case 'u64':
        this.u64(BigInt.asUintN(64, v.value) === v.value ? v.value : badBig(key, v.value, 'u64'));
        return;
      case 'i64':
        this.i64(BigInt.asIntN(64, v.value) === v.value ? v.value : badBig(key, v.value, 'i64'));
        return;
      case 'bool':
        this.u8(v.value ? 1 : 0);
        return;
      case 'string':
        this.string(v.value);
        return;
    }
  }

  private array(key: string, v: GgufArray): void {
    this.u32(GGUF_VALUE_TAGS[v.itemType]);
    this.u64(BigInt(v.value.length));
    switch (v.itemType) {
      case 'string':
        for (const s of v.value) this.string(s);
        return;
      case 'bool':
        for (const b of v.value) this.u8(b ? 1 : 0);
        return;
      case 'array':
        for (const a of v.value) this.array(key, a);
        return;
      default: {
        const a = v.value;
        if (a.BYTES_PER_ELEMENT !== GGUF_SCALAR_SIZE[v.itemType]) {
          throw new GgufError('GGUF_BAD_VALUE_TYPE', `array '${key}' holds ${a.constructor.name}, not ${v.itemType} items`);
        }
        this.raw(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      }
    }
  }
}

function checkInt(key: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new GgufError('GGUF_BAD_VALUE_TYPE', `value of '${key}' = ${v} is not an integer in [${min}, ${max}]`);
  }
  return v;
}

function badBig(key: string, v: bigint, type: string): never {
  throw new GgufError('GGUF_BAD_VALUE_TYPE', `value of '${key}' = ${v} does not fit ${type}`);
}
