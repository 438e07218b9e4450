// Crafted zip archives for the hostile-input tests: a plain writer (stored or deflated entries, no
// ZIP64, data descriptors on request) whose records can be made to lie one field at a time.
import { readFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipSpec {
  name: string;
  data: Uint8Array;
  deflate?: boolean;
  /** What the local header calls the entry, when it should disagree with the central directory. */
  localName?: string;
  /** The uncompressed size both headers declare (a lie when it is not data's length). */
  declaredSize?: number;
  /** The CRC-32 both headers record (a lie when it is not data's). */
  crc?: number;
  /** The local header's uncompressed size and method, when they should disagree. */
  localSize?: number;
  localMethod?: number;
  /** Flag bit 3: zero CRC and sizes in the local header, then a 16-byte descriptor (signature, CRC, u32 sizes) after the data. */
  descriptor?: boolean;
}

const UTF8 = 0x800;

export function buildZip(specs: readonly ZipSpec[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let at = 0;
  for (const spec of specs) {
    const name = Buffer.from(spec.name);
    const localName = Buffer.from(spec.localName ?? spec.name);
    const body = spec.deflate ? deflateRawSync(spec.data) : Buffer.from(spec.data);
    const method = spec.deflate ? 8 : 0;
    const size = spec.declaredSize ?? spec.data.byteLength;
    const crc = spec.crc ?? crc32(spec.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    const flags = UTF8 | (spec.descriptor ? 0x8 : 0);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(spec.localMethod ?? method, 8);
    if (!spec.descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(body.byteLength, 18);
      local.writeUInt32LE(spec.localSize ?? size, 22);
    }
    local.writeUInt16LE(localName.byteLength, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(body.byteLength, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.byteLength, 28);
    record.writeUInt32LE(at, 42);
    const descriptor = Buffer.alloc(spec.descriptor ? 16 : 0);
    if (spec.descriptor) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(body.byteLength, 8);
      descriptor.writeUInt32LE(size, 12);
    }
    parts.push(local, localName, body, descriptor);
    central.push(record, name);
    at += local.byteLength + localName.byteLength + body.byteLength + descriptor.byteLength;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(specs.length, 8);
  end.writeUInt16LE(specs.length, 10);
  end.writeUInt32LE(directory.byteLength, 12);
  end.writeUInt32LE(at, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

/** The entries of a zip written without data descriptors (as the small forged fixtures are), by name. */
export function storedEntries(path: string): Map<string, Uint8Array> {
  const bytes = readFileSync(path);
  const out = new Map<string, Uint8Array>();
  for (let i = 0; i + 30 <= bytes.length; i++) {
    if (bytes.readUInt32LE(i) !== 0x04034b50) continue;
    const size = bytes.readUInt32LE(i + 18);
    const nameLength = bytes.readUInt16LE(i + 26);
    const extraLength = bytes.readUInt16LE(i + 28);
    const name = bytes.subarray(i + 30, i + 30 + nameLength).toString('utf8');
    const start = i + 30 + nameLength + extraLength;
    out.set(name, new Uint8Array(bytes.subarray(start, start + size)));
    i = start + size - 1;
  }
  return out;
}
