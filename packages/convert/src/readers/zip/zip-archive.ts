// A read-only zip archive over a positioned-read file, its records parsed by yauzl: the central
// directory, names (absolute and `..` paths refused), ZIP64, stored sizes, and streamed inflation
// that stops at the declared size. On top of yauzl, every entry is checked before its bytes are used:
// the local header (and the data descriptor torch writes) must agree with the central directory on
// name, method, sizes and CRC-32; the data must lie before the central directory; the CRC-32 of the
// bytes is checked while they are read or inflated; and a deflated entry is refused up front when it
// declares more than the inflate limit (JEPA_MAX_ZIP_ENTRY_MIB). Stored entries (what torch writes
// for tensors) are read by range, never whole.
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { ConvertError, type ConvertErrorCode } from '../../errors.js';
import { MAX_TENSOR_BYTES } from '../dtypes.js';
import type { RandomAccessFile } from '../random-access-file.js';
import { locateDirectory } from './central-directory.js';
import { sizeText, zipEntryLimit } from './zip-limits.js';
import { RecordReader, ZIP64_EXTRA_ID } from './zip-records.js';

const STORED = 0;
const DEFLATED = 8;
const FLAG_ENCRYPTED = 0x1;
const FLAG_DATA_DESCRIPTOR = 0x8;
const SIG_DATA_DESCRIPTOR = 0x08074b50;
/** Reads of a stream (inflate input, CRC pass over a stored entry) go in pieces of this size. */
const CHUNK = 4 * 2 ** 20;

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  /** yauzl's central directory record. */
  readonly record: yauzl.Entry;
}

/** yauzl's reads, served by the RandomAccessFile (one handle, positioned reads only). */
class FileReader extends yauzl.RandomAccessReader {
  constructor(private readonly file: RandomAccessFile) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const file = this.file;
    async function* pieces(): AsyncGenerator<Buffer> {
      for (let at = start; at < end; at += CHUNK) {
        const bytes = await file.read(at, Math.min(CHUNK, end - at));
        yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
    }
    return Readable.from(pieces(), { objectMode: false });
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    this.file.read(position, length).then(
      (bytes) => {
        buffer.set(bytes, offset);
        callback(null, length);
      },
      (error: Error) => callback(error),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    // The file belongs to the checkpoint, which closes it.
    callback(null);
  }
}

const YAUZL_CODES: readonly [RegExp, ConvertErrorCode][] = [
  [/end of central directory record signature not found/, 'ZIP_NO_END_RECORD'],
  [/absolute path|invalid relative path|invalid characters in fileName/, 'ZIP_BAD_NAME'],
  [/too many bytes in the stream|not enough bytes in the stream/, 'ZIP_INFLATE_FAILED'],
  [/unsupported compression method/, 'ZIP_UNSUPPORTED_COMPRESSION'],
  [/encrypt/i, 'ZIP_ENCRYPTED'],
];

/** A yauzl or zlib error as a one-line ConvertError naming the archive (and the entry, when there is one). */
function zipError(what: string, error: unknown, context?: string): ConvertError {
  if (error instanceof ConvertError) return error;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const zlibCode = (error as { code?: unknown }).code;
  let code: ConvertErrorCode = typeof zlibCode === 'string' && zlibCode.startsWith('Z_') ? 'ZIP_INFLATE_FAILED' : 'ZIP_BAD_RECORD';
  for (const [pattern, c] of YAUZL_CODES) if (pattern.test(message)) code = c;
  return new ConvertError(code, `${what}: ${context ? `${context}: ` : ''}${message}`, { cause: error });
}

function call<T>(what: string, context: string | undefined, start: (cb: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      start((err, value) => (err ? reject(zipError(what, err, context)) : resolve(value as T)));
    } catch (error) {
      reject(zipError(what, error, context));
    }
  });
}

/** The next central directory record, or null after the last. */
function nextEntry(zip: yauzl.ZipFile, what: string, index: number): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      zip.removeListener('entry', onEntry);
      zip.removeListener('end', onEnd);
      zip.removeListener('error', onError);
    };
    const onEntry = (entry: yauzl.Entry): void => {
      done();
      resolve(entry);
    };
    const onEnd = (): void => {
      done();
      resolve(null);
    };
    const onError = (error: Error): void => {
      done();
      reject(zipError(what, error, `central directory entry ${index}`));
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

function printable(bytes: Uint8Array): string {
  return JSON.stringify(Buffer.from(bytes).toString('utf8'));
}

/** The local header's sizes, through its ZIP64 extra field when they are 0xffffffff. */
function localSizes(header: yauzl.LocalFileHeader, what: string): { compressed: number; uncompressed: number } {
  let compressed = header.compressedSize;
  let uncompressed = header.uncompressedSize;
  if (compressed !== 0xffffffff && uncompressed !== 0xffffffff) return { compressed, uncompressed };
  const extra = new RecordReader(header.extraField, what);
  for (let at = 0; at + 4 <= extra.bytes.byteLength; at += 4 + extra.u16(at + 2)) {
    if (extra.u16(at) !== ZIP64_EXTRA_ID) continue;
    // The local ZIP64 field carries both sizes, uncompressed first.
    const field = new RecordReader(extra.slice(at + 4, extra.u16(at + 2)), what);
    uncompressed = field.u64(0);
    compressed = field.u64(8);
    return { compressed, uncompressed };
  }
  return { compressed, uncompressed };
}

export class ZipArchive {
  private readonly dataOffsets = new Map<string, Promise<number>>();
  private readonly verified = new Map<string, Promise<void>>();

  private constructor(
    private readonly file: RandomAccessFile,
    private readonly zip: yauzl.ZipFile,
    readonly entries: Map<string, ZipEntry>,
    /** Where the central directory starts: every entry's data (and descriptor) must end before it. */
    private readonly directoryOffset: number,
    private readonly what: string,
  ) {}

  static async open(file: RandomAccessFile, what: string): Promise<ZipArchive> {
    // Our own look at the end records first: the central directory must lie inside the file, and its
    // start bounds the data area. yauzl then reads the records themselves.
    const location = await locateDirectory(file, what);
    if (location.offset + location.size > file.size) {
      throw new ConvertError(
        'ZIP_BAD_RECORD',
        `${what}: central directory [${location.offset}, ${location.offset + location.size}) runs past the file (${file.size} bytes)`,
      );
    }
    const options = { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true };
    const zip = await call<yauzl.ZipFile>(what, undefined, (cb) => yauzl.fromRandomAccessReader(new FileReader(file), file.size, options, cb));
    if (zip.entryCount !== location.count) {
      throw new ConvertError('ZIP_BAD_RECORD', `${what}: the end records disagree on the entry count (${zip.entryCount} and ${location.count})`);
    }
    const entries = new Map<string, ZipEntry>();
    for (let i = 0; ; i++) {
      const record = await nextEntry(zip, what, i);
      if (record === null) break;
      const name = record.fileName;
      if (entries.has(name)) throw new ConvertError('ZIP_BAD_RECORD', `${what}: entry '${name}' appears twice`);
      entries.set(name, {
        name,
        method: record.compressionMethod,
        flags: record.generalPurposeBitFlag,
        crc32: record.crc32,
        compressedSize: record.compressedSize,
        uncompressedSize: record.uncompressedSize,
        localHeaderOffset: record.relativeOffsetOfLocalHeader,
        record,
      });
    }
    return new ZipArchive(file, zip, entries, location.offset, what);
  }

  entry(name: string): ZipEntry {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ConvertError('ZIP_MISSING_ENTRY', `${this.what}: no entry '${name}'`);
    return entry;
  }

  private refuse(code: ConvertErrorCode, entry: ZipEntry, message: string): ConvertError {
    return new ConvertError(code, `${this.what}: entry '${entry.name}' ${message}`);
  }

  /** Absolute offset of the entry's (possibly compressed) bytes, once its local records are checked. */
  private dataOffset(entry: ZipEntry): Promise<number> {
    let offset = this.dataOffsets.get(entry.name);
    if (offset === undefined) {
      offset = this.checkLocal(entry);
      this.dataOffsets.set(entry.name, offset);
    }
    return offset;
  }

  private async checkLocal(entry: ZipEntry): Promise<number> {
    if (entry.flags & FLAG_ENCRYPTED) throw this.refuse('ZIP_ENCRYPTED', entry, 'is encrypted');
    if (entry.method !== STORED && entry.method !== DEFLATED) {
      throw this.refuse('ZIP_UNSUPPORTED_COMPRESSION', entry, `uses compression method ${entry.method} (only stored and deflate are read)`);
    }
    if (entry.localHeaderOffset + 30 > this.directoryOffset) {
      throw this.refuse('ZIP_ENTRY_OUT_OF_FILE', entry, `has its local header at ${entry.localHeaderOffset}, past the data area`);
    }
    const local = await call<yauzl.LocalFileHeader>(this.what, `entry '${entry.name}'`, (cb) => this.zip.readLocalFileHeader(entry.record, cb));
    if (!Buffer.from(local.fileName).equals(Buffer.from(entry.record.fileNameRaw))) {
      throw this.refuse('ZIP_HEADER_MISMATCH', entry, `is named ${printable(local.fileName)} by its local header`);
    }
    if (local.compressionMethod !== entry.method) {
      throw this.refuse(
        'ZIP_HEADER_MISMATCH',
        entry,
        `has compression method ${local.compressionMethod} in its local header but ${entry.method} in the central directory`,
      );
    }
    for (const [bit, what] of [
      [FLAG_ENCRYPTED, 'encryption'],
      [FLAG_DATA_DESCRIPTOR, 'data descriptor'],
    ] as const) {
      if ((local.generalPurposeBitFlag & bit) !== (entry.flags & bit)) {
        throw this.refuse('ZIP_HEADER_MISMATCH', entry, `has its ${what} flag set in only one of its local header and the central directory`);
      }
    }
    const start = local.fileDataStart;
    const end = start + entry.compressedSize;
    if (end > this.directoryOffset) {
      throw this.refuse('ZIP_ENTRY_OUT_OF_FILE', entry, `data [${start}, ${end}) overruns the data area (ends at ${this.directoryOffset})`);
    }
    if (local.generalPurposeBitFlag & FLAG_DATA_DESCRIPTOR) await this.checkDescriptor(entry, end);
    else {
      const sizes = localSizes(local, this.what);
      if (local.crc32 !== entry.crc32 || sizes.compressed !== entry.compressedSize || sizes.uncompressed !== entry.uncompressedSize) {
        throw this.refuse(
          'ZIP_HEADER_MISMATCH',
          entry,
          `has CRC-32 ${hex(local.crc32)} and sizes ${sizes.compressed}/${sizes.uncompressed} in its local header but ${hex(entry.crc32)} and ${entry.compressedSize}/${entry.uncompressedSize} in the central directory`,
        );
      }
    }
    return start;
  }

  /** The record after the data (bit 3): CRC-32 and sizes, 4- or 8-byte, with or without its signature. */
  private async checkDescriptor(entry: ZipEntry, at: number): Promise<void> {
    const available = Math.min(24, this.directoryOffset - at);
    const bytes = new RecordReader(available > 0 ? await this.file.read(at, available) : new Uint8Array(0), this.what);
    const base = available >= 4 && bytes.u32(0) === SIG_DATA_DESCRIPTOR ? 4 : 0;
    if (available < base + 12) throw this.refuse('ZIP_HEADER_MISMATCH', entry, `has no data descriptor after its data (at ${at})`);
    const crc = bytes.u32(base);
    const narrow = bytes.u32(base + 4) === entry.compressedSize && bytes.u32(base + 8) === entry.uncompressedSize;
    // compared as two halves: a narrow record's sizes (or the next header) read as one u64 may exceed 2^53
    const u64 = (at: number) => bytes.u32(at) + bytes.u32(at + 4) * 2 ** 32;
    const wide = available >= base + 20 && u64(base + 4) === entry.compressedSize && u64(base + 12) === entry.uncompressedSize;
    if (crc !== entry.crc32 || !(narrow || wide)) {
      throw this.refuse(
        'ZIP_HEADER_MISMATCH',
        entry,
        `has a data descriptor (CRC-32 ${hex(crc)}) that disagrees with the central directory (CRC-32 ${hex(entry.crc32)}, sizes ${entry.compressedSize}/${entry.uncompressedSize})`,
      );
    }
  }

  private checkCrc(entry: ZipEntry, actual: number): void {
    if (actual !== entry.crc32) {
      throw this.refuse(
        'ZIP_CRC_MISMATCH',
        entry,
        `has CRC-32 ${hex(actual)} but the central directory records ${hex(entry.crc32)} (the file is damaged or was altered)`,
      );
    }
  }

  /** One CRC pass over a stored entry, in CHUNK pieces, before any part of it is used. */
  private verifyStored(entry: ZipEntry, start: number): Promise<void> {
    let pass = this.verified.get(entry.name);
    if (pass === undefined) {
      pass = (async () => {
        let crc = 0;
        for (let at = 0; at < entry.uncompressedSize; at += CHUNK)
          crc = crc32(await this.file.read(start + at, Math.min(CHUNK, entry.uncompressedSize - at)), crc);
        this.checkCrc(entry, crc);
      })();
      this.verified.set(entry.name, pass);
    }
    return pass;
  }

  /** Reads `length` uncompressed bytes at `offset` inside the entry. */
  async readRange(entry: ZipEntry, offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > entry.uncompressedSize) {
      throw new ConvertError(
        'ZIP_ENTRY_OUT_OF_FILE',
        `${this.what}: range [${offset}, ${offset + length}) is outside entry '${entry.name}' (${entry.uncompressedSize} bytes)`,
      );
    }
    const start = await this.dataOffset(entry);
    if (entry.method === DEFLATED) {
      const whole = await this.inflate(entry, start);
      return offset === 0 && length === whole.byteLength ? whole : whole.slice(offset, offset + length);
    }
    if (offset === 0 && length === entry.uncompressedSize && !this.verified.has(entry.name)) {
      // The whole entry: its CRC-32 is checked on the bytes just read, no second pass.
      const bytes = await this.file.read(start, length);
      this.checkCrc(entry, crc32(bytes));
      this.verified.set(entry.name, Promise.resolve());
      return bytes;
    }
    await this.verifyStored(entry, start);
    return this.file.read(start + offset, length);
  }

  async read(entry: ZipEntry): Promise<Uint8Array> {
    return this.readRange(entry, 0, entry.uncompressedSize);
  }

  /**
   * Inflates a deflated entry as a stream into one buffer of its declared size: refused before any
   * inflating when that size is past the limit, stopped by yauzl as soon as the output runs past it,
   * and CRC-checked as it goes.
   */
  private async inflate(entry: ZipEntry, start: number): Promise<Uint8Array> {
    const limit = zipEntryLimit();
    const declared = entry.uncompressedSize;
    if (declared > limit.bytes || declared > MAX_TENSOR_BYTES) {
      const bound = declared > limit.bytes ? `the limit is ${limit.setting} (MiB)` : `one buffer holds at most ${sizeText(MAX_TENSOR_BYTES)}`;
      throw this.refuse(
        'ZIP_ENTRY_TOO_LARGE',
        entry,
        `declares ${sizeText(declared)} uncompressed (${sizeText(entry.compressedSize)} deflated); ${bound}`,
      );
    }
    const context = `entry '${entry.name}' (deflated, ${declared} bytes declared)`;
    const stream = await call<Readable>(this.what, context, (cb) =>
      this.zip.openReadStreamLowLevel(start, entry.compressedSize, 0, entry.compressedSize, true, declared, cb),
    );
    // A fresh buffer at offset 0, so typed-array views over it are aligned.
    const out = new Uint8Array(declared);
    let at = 0;
    let crc = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (at + chunk.byteLength > declared) throw this.refuse('ZIP_INFLATE_FAILED', entry, `inflates past its declared ${declared} bytes`);
        out.set(chunk, at);
        at += chunk.byteLength;
        crc = crc32(chunk, crc);
      }
    } catch (error) {
      stream.destroy();
      throw zipError(this.what, error, context);
    }
    if (at !== declared) throw this.refuse('ZIP_INFLATE_FAILED', entry, `inflates to ${at} bytes, not ${declared}`);
    this.checkCrc(entry, crc);
    return out;
  }
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
