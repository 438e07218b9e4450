import { PreprocessError } from '@jepa/preprocess';
import type { DecodableFormat, Sniffed } from './magic.js';

const TRUNCATION = /premature end|unexpected end|end of (file|data|input)|truncat|read error at scanline|not enough data/i;

/** libvips's error text, which can run to many lines of seek traces, as one short line. */
export function libvipsDetail(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim().replace(/^Input (buffer|file) has corrupt header: /, ''))
    .filter((l) => l !== '' && !/^source: bad seek/.test(l) && !/^\(\d+\.\d+\)$/.test(l));
  const detail = lines.slice(-2).join('; ');
  return detail.length > 200 ? `${detail.slice(0, 197)}...` : detail;
}

function readU32(bytes: Uint8Array, at: number, littleEndian: boolean): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, littleEndian);
}

/** Whether the container's own structure says the file stops early. */
function structurallyTruncated(format: DecodableFormat, bytes: Uint8Array): boolean {
  switch (format) {
    case 'png': {
      let pos = 8;
      while (pos + 8 <= bytes.length) {
        const length = readU32(bytes, pos, false);
        const type = String.fromCharCode(...bytes.subarray(pos + 4, pos + 8));
        pos += 12 + length;
        if (type === 'IEND') return pos > bytes.length;
      }
      return true;
    }
    case 'webp':
      return bytes.length < 12 || readU32(bytes, 4, true) + 8 > bytes.length;
    case 'tiff':
      return bytes.length < 8 || readU32(bytes, 4, bytes[0] === 0x49) >= bytes.length;
    case 'jpeg': {
      let end = bytes.length;
      while (end > 2 && bytes[end - 1] === 0) end--;
      return !(bytes[end - 2] === 0xff && bytes[end - 1] === 0xd9);
    }
    case 'gif':
      return bytes[bytes.length - 1] !== 0x3b;
    default:
      return false;
  }
}

/** Maps a libvips failure on a file whose magic bytes named `sniffed` to a one-line PreprocessError. */
export function decodeFailure(err: unknown, sniffed: Sniffed, bytes: Uint8Array): PreprocessError {
  const message = err instanceof Error ? err.message : String(err);
  const detail = libvipsDetail(message);
  const size = `${bytes.length} bytes`;
  const format = sniffed.format!;
  if (TRUNCATION.test(message) || structurallyTruncated(format, bytes)) {
    return new PreprocessError('truncated_image', `truncated ${sniffed.label}: the data ends before the image does (${size}; libvips: ${detail})`, {
      cause: err,
    });
  }
  if (/unsupported image format/.test(message)) {
    return new PreprocessError('corrupt_image', `corrupt ${sniffed.label}: libvips cannot read its header (${size})`, {
      cause: err,
    });
  }
  return new PreprocessError('corrupt_image', `corrupt ${sniffed.label}: ${detail} (${size})`, { cause: err });
}
