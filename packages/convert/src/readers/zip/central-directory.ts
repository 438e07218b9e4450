import { ConvertError } from '../../errors.js';
import type { RandomAccessFile } from '../random-access-file.js';
import {
  END_RECORD_SIZE,
  MAX_COMMENT,
  RecordReader,
  SIG_CENTRAL_ENTRY,
  SIG_END,
  SIG_ZIP64_END,
  SIG_ZIP64_LOCATOR,
  ZIP64_EXTRA_ID,
} from './zip-records.js';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export interface CentralDirectory {
  entries: Map<string, ZipEntry>;
  /** Where the central directory starts: every entry's data must end before it. */
  offset: number;
}

interface DirectoryLocation {
  count: number;
  size: number;
  offset: number;
}

/** Finds the end of central directory record (and its ZIP64 form) from the file's tail. */
async function locateDirectory(file: RandomAccessFile, what: string): Promise<DirectoryLocation> {
  const tailLength = Math.min(file.size, END_RECORD_SIZE + MAX_COMMENT);
  const tailStart = file.size - tailLength;
  const tail = new RecordReader(await file.read(tailStart, tailLength), what);
  let end = -1;
  for (let i = tailLength - END_RECORD_SIZE; i >= 0; i--) {
    if (tail.u32(i) === SIG_END && i + END_RECORD_SIZE + tail.u16(i + 20) <= tailLength) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ConvertError('ZIP_NO_END_RECORD', `${what}: no zip end of central directory record`);
  const location = { count: tail.u16(end + 10), size: tail.u32(end + 12), offset: tail.u32(end + 16) };

  // A ZIP64 locator sits right before the classic record; when present its values are authoritative.
  const locatorAt = tailStart + end - 20;
  if (locatorAt < 0) return location;
  const locator = new RecordReader(await file.read(locatorAt, 20), what);
  if (locator.u32(0) !== SIG_ZIP64_LOCATOR) {
    if (location.count === 0xffff || location.size === 0xffffffff || location.offset === 0xffffffff) {
      throw new ConvertError('ZIP_BAD_RECORD', `${what}: the end record asks for ZIP64 but no ZIP64 locator precedes it`);
    }
    return location;
  }
  const zip64At = locator.u64(8);
  if (zip64At + 56 > locatorAt) throw new ConvertError('ZIP_BAD_RECORD', `${what}: ZIP64 end record offset ${zip64At} is out of place`);
  const zip64 = new RecordReader(await file.read(zip64At, 56), what);
  if (zip64.u32(0) !== SIG_ZIP64_END) throw new ConvertError('ZIP_BAD_RECORD', `${what}: no ZIP64 end record at ${zip64At}`);
  return { count: zip64.u64(32), size: zip64.u64(40), offset: zip64.u64(48) };
}

/** Values the ZIP64 extra field carries, in the fixed order the format gives them. */
function applyZip64Extra(extra: RecordReader, entry: ZipEntry, diskIsMarked: boolean, what: string): void {
  let at = 0;
  while (at + 4 <= extra.bytes.byteLength) {
    const id = extra.u16(at);
    const size = extra.u16(at + 2);
    if (id === ZIP64_EXTRA_ID) {
      const field = new RecordReader(extra.slice(at + 4, size), what);
      let p = 0;
      const next = (): number => {
        const value = field.u64(p);
        p += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
      if (diskIsMarked) field.u32(p);
      return;
    }
    at += 4 + size;
  }
  if (entry.uncompressedSize === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff) {
    throw new ConvertError('ZIP_BAD_RECORD', `${what}: entry '${entry.name}' needs a ZIP64 extra field but has none`);
  }
}

export async function readCentralDirectory(file: RandomAccessFile, what: string): Promise<CentralDirectory> {
  const location = await locateDirectory(file, what);
  if (location.offset + location.size > file.size) {
    throw new ConvertError('ZIP_BAD_RECORD', `${what}: central directory [${location.offset}, ${location.offset + location.size}) runs past the file (${file.size} bytes)`);
  }
  const directory = new RecordReader(await file.read(location.offset, location.size), what);
  const decoder = new TextDecoder('utf-8');
  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let i = 0; i < location.count; i++) {
    if (directory.u32(at) !== SIG_CENTRAL_ENTRY) throw new ConvertError('ZIP_BAD_RECORD', `${what}: central directory entry ${i} has a bad signature`);
    const nameLength = directory.u16(at + 28);
    const extraLength = directory.u16(at + 30);
    const commentLength = directory.u16(at + 32);
    const entry: ZipEntry = {
      name: decoder.decode(directory.slice(at + 46, nameLength)),
      flags: directory.u16(at + 8),
      method: directory.u16(at + 10),
      crc32: directory.u32(at + 16),
      compressedSize: directory.u32(at + 20),
      uncompressedSize: directory.u32(at + 24),
      localHeaderOffset: directory.u32(at + 42),
    };
    const extra = new RecordReader(directory.slice(at + 46 + nameLength, extraLength), what);
    applyZip64Extra(extra, entry, directory.u16(at + 34) === 0xffff, what);
    if (entries.has(entry.name)) throw new ConvertError('ZIP_BAD_RECORD', `${what}: entry '${entry.name}' appears twice`);
    entries.set(entry.name, entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return { entries, offset: location.offset };
}
