import { ConvertError } from '../../errors.js';
import type { RandomAccessFile } from '../random-access-file.js';
import { END_RECORD_SIZE, MAX_COMMENT, RecordReader, SIG_END, SIG_ZIP64_END, SIG_ZIP64_LOCATOR } from './zip-records.js';

export interface DirectoryLocation {
  count: number;
  size: number;
  offset: number;
}

/**
 * Finds the end of central directory record (and its ZIP64 form) from the file's tail. yauzl reads
 * the directory itself; this is the archive's own check that the directory lies inside the file, and
 * where the data area ends.
 */
export async function locateDirectory(file: RandomAccessFile, what: string): Promise<DirectoryLocation> {
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
