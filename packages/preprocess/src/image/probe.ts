import { PreprocessError } from '../errors.js';

export type ImageFormat = 'jpeg' | 'png';

export interface JpegComponent {
  id: number;
  /** Horizontal and vertical sampling factors from the frame header. */
  h: number;
  v: number;
}

/** What libjpeg looks at to choose the colour space and upsampling of a JPEG. */
export interface JpegLayout {
  components: JpegComponent[];
  hasJfif: boolean;
  /** The Adobe APP14 transform flag, or null without an Adobe segment. */
  adobeTransform: number | null;
}

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
  jpeg?: JpegLayout;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function sniffFormat(bytes: Uint8Array): ImageFormat {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  const head = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new PreprocessError(
    'unsupported_format',
    `not a JPEG or PNG image (${bytes.length} bytes, starting ${head || '<empty>'})`,
  );
}

function readU16BE(bytes: Uint8Array, at: number): number {
  return (bytes[at] << 8) | bytes[at + 1];
}

function readU32BE(bytes: Uint8Array, at: number): number {
  return bytes[at] * 0x1000000 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
}

function isStartOfFrame(marker: number): boolean {
  // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/**
 * Walks the JPEG marker structure without decoding: finds the frame header and checks the
 * stream reaches its EOI marker, so a truncated file is refused before any pixel memory exists.
 */
function probeJpeg(bytes: Uint8Array): ImageHeader {
  const truncated = (where: string): PreprocessError =>
    new PreprocessError('truncated_image', `truncated JPEG: ${bytes.length} bytes end ${where}`);
  let width = -1;
  let height = -1;
  let components: JpegComponent[] = [];
  let hasJfif = false;
  let adobeTransform: number | null = null;
  let pos = 2;
  for (;;) {
    if (pos >= bytes.length) throw truncated(width < 0 ? 'before the frame header' : 'before the EOI marker');
    if (bytes[pos] !== 0xff) {
      throw new PreprocessError('corrupt_image', `corrupt JPEG: expected a marker at byte ${pos}`);
    }
    while (pos < bytes.length && bytes[pos] === 0xff) pos++;
    if (pos >= bytes.length) throw truncated('inside a marker');
    const marker = bytes[pos++];
    if (marker === 0xd9) break;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (pos + 2 > bytes.length) throw truncated('inside a segment length');
    const length = readU16BE(bytes, pos);
    if (length < 2) throw new PreprocessError('corrupt_image', `corrupt JPEG: segment length ${length} at byte ${pos}`);
    if (pos + length > bytes.length) throw truncated(`inside segment 0xFF${marker.toString(16).toUpperCase()}`);
    if (isStartOfFrame(marker)) {
      if (length < 8) throw new PreprocessError('corrupt_image', 'corrupt JPEG: short frame header');
      height = readU16BE(bytes, pos + 3);
      width = readU16BE(bytes, pos + 5);
      if (width === 0 || height === 0) {
        throw new PreprocessError('empty_image', `JPEG frame header declares a ${width}x${height} image`);
      }
      const count = bytes[pos + 7];
      if (length < 8 + 3 * count) throw new PreprocessError('corrupt_image', 'corrupt JPEG: short frame header');
      components = [];
      for (let i = 0; i < count; i++) {
        const at = pos + 8 + 3 * i;
        components.push({ id: bytes[at], h: bytes[at + 1] >> 4, v: bytes[at + 1] & 15 });
      }
    } else if (marker === 0xe0 && length >= 7 && String.fromCharCode(...bytes.subarray(pos + 2, pos + 7)) === 'JFIF\0') {
      hasJfif = true;
    } else if (marker === 0xee && length >= 14 && String.fromCharCode(...bytes.subarray(pos + 2, pos + 7)) === 'Adobe') {
      adobeTransform = bytes[pos + 13];
    }
    pos += length;
    if (marker === 0xda) {
      if (width < 0) throw new PreprocessError('corrupt_image', 'corrupt JPEG: scan before the frame header');
      // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart marker.
      for (;;) {
        if (pos + 1 >= bytes.length) throw truncated('inside entropy-coded data');
        if (bytes[pos] === 0xff) {
          const next = bytes[pos + 1];
          if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) break;
          pos += next === 0xff ? 1 : 2;
        } else {
          pos++;
        }
      }
    }
  }
  if (width < 0) throw new PreprocessError('corrupt_image', 'corrupt JPEG: no frame header before EOI');
  return { format: 'jpeg', width, height, jpeg: { components, hasJfif, adobeTransform } };
}

function probePng(bytes: Uint8Array): ImageHeader {
  if (bytes.length < 33) throw new PreprocessError('truncated_image', `truncated PNG: ${bytes.length} bytes, no IHDR`);
  const isIhdr = bytes[12] === 0x49 && bytes[13] === 0x48 && bytes[14] === 0x44 && bytes[15] === 0x52;
  if (!isIhdr) throw new PreprocessError('corrupt_image', 'corrupt PNG: first chunk is not IHDR');
  const width = readU32BE(bytes, 16);
  const height = readU32BE(bytes, 20);
  if (width === 0 || height === 0) {
    throw new PreprocessError('empty_image', `PNG header declares a ${width}x${height} image`);
  }
  return { format: 'png', width, height };
}

/** Reads format and dimensions from the header bytes alone. */
export function probeImage(bytes: Uint8Array): ImageHeader {
  return sniffFormat(bytes) === 'jpeg' ? probeJpeg(bytes) : probePng(bytes);
}
