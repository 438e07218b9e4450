import { inflateRawSync } from 'node:zlib';
import { ConvertError } from '../../errors.js';
import type { RandomAccessFile } from '../random-access-file.js';
import { readCentralDirectory, type ZipEntry } from './central-directory.js';
import { RecordReader, SIG_LOCAL_HEADER } from './zip-records.js';

const STORED = 0;
const DEFLATED = 8;

/**
 * A read-only zip archive over a positioned-read file. Stored entries (what torch writes) are
 * read by range; a deflated entry is inflated whole when read.
 */
export class ZipArchive {
  private readonly dataOffsets = new Map<string, number>();

  private constructor(
    private readonly file: RandomAccessFile,
    readonly entries: Map<string, ZipEntry>,
    private readonly directoryOffset: number,
    private readonly what: string,
  ) {}

  static async open(file: RandomAccessFile, what: string): Promise<ZipArchive> {
    const { entries, offset } = await readCentralDirectory(file, what);
    return new ZipArchive(file, entries, offset, what);
  }

  entry(name: string): ZipEntry {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ConvertError('ZIP_MISSING_ENTRY', `${this.what}: no entry '${name}'`);
    return entry;
  }

  /** Absolute offset of the entry's (possibly compressed) bytes, after its local header. */
  private async dataOffset(entry: ZipEntry): Promise<number> {
    const cached = this.dataOffsets.get(entry.name);
    if (cached !== undefined) return cached;
    if (entry.flags & 1) throw new ConvertError('ZIP_ENCRYPTED', `${this.what}: entry '${entry.name}' is encrypted`);
    if (entry.method !== STORED && entry.method !== DEFLATED) {
      throw new ConvertError('ZIP_UNSUPPORTED_COMPRESSION', `${this.what}: entry '${entry.name}' uses compression method ${entry.method} (only stored and deflate are read)`);
    }
    if (entry.localHeaderOffset + 30 > this.directoryOffset) {
      throw new ConvertError('ZIP_ENTRY_OUT_OF_FILE', `${this.what}: entry '${entry.name}' local header at ${entry.localHeaderOffset} is past the data area`);
    }
    const local = new RecordReader(await this.file.read(entry.localHeaderOffset, 30), this.what);
    if (local.u32(0) !== SIG_LOCAL_HEADER) throw new ConvertError('ZIP_BAD_RECORD', `${this.what}: entry '${entry.name}' has no local header at ${entry.localHeaderOffset}`);
    const start = entry.localHeaderOffset + 30 + local.u16(26) + local.u16(28);
    if (start + entry.compressedSize > this.directoryOffset) {
      throw new ConvertError(
        'ZIP_ENTRY_OUT_OF_FILE',
        `${this.what}: entry '${entry.name}' data [${start}, ${start + entry.compressedSize}) overruns the data area (ends at ${this.directoryOffset})`,
      );
    }
    if (entry.method === STORED && entry.compressedSize !== entry.uncompressedSize) {
      throw new ConvertError('ZIP_BAD_RECORD', `${this.what}: stored entry '${entry.name}' has sizes ${entry.compressedSize} and ${entry.uncompressedSize}`);
    }
    this.dataOffsets.set(entry.name, start);
    return start;
  }

  /** Reads `length` uncompressed bytes at `offset` inside the entry. */
  async readRange(entry: ZipEntry, offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > entry.uncompressedSize) {
      throw new ConvertError('ZIP_ENTRY_OUT_OF_FILE', `${this.what}: range [${offset}, ${offset + length}) is outside entry '${entry.name}' (${entry.uncompressedSize} bytes)`);
    }
    const start = await this.dataOffset(entry);
    if (entry.method === STORED) return this.file.read(start + offset, length);
    const whole = this.inflate(entry, await this.file.read(start, entry.compressedSize));
    return offset === 0 && length === whole.byteLength ? whole : whole.slice(offset, offset + length);
  }

  async read(entry: ZipEntry): Promise<Uint8Array> {
    return this.readRange(entry, 0, entry.uncompressedSize);
  }

  private inflate(entry: ZipEntry, compressed: Uint8Array): Uint8Array {
    let inflated: Buffer;
    try {
      inflated = inflateRawSync(compressed, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch (cause) {
      throw new ConvertError('ZIP_INFLATE_FAILED', `${this.what}: entry '${entry.name}' does not inflate to ${entry.uncompressedSize} bytes (${(cause as Error).message})`, { cause });
    }
    if (inflated.byteLength !== entry.uncompressedSize) {
      throw new ConvertError('ZIP_INFLATE_FAILED', `${this.what}: entry '${entry.name}' inflates to ${inflated.byteLength} bytes, not ${entry.uncompressedSize}`);
    }
    // A fresh buffer at offset 0, so typed-array views over it are aligned.
    const out = new Uint8Array(inflated.byteLength);
    out.set(inflated);
    return out;
  }
}
