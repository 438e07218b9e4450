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
  /** EXIF Orientation (1-8) from a JPEG APP1 Exif segment or a PNG eXIf chunk; 1 without one. */
  orientation: number;
  jpeg?: JpegLayout;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function sniffFormat(bytes: Uint8Array): ImageFormat {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  const head = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new PreprocessError('unsupported_format', `not a JPEG or PNG image (${bytes.length} bytes, starting ${head || '<empty>'})`);
}

function readU16BE(bytes: Uint8Array, at: number): number {
  return (bytes[at] << 8) | bytes[at + 1];
}

function readU32BE(bytes: Uint8Array, at: number): number {
  return bytes[at] * 0x1000000 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
}

/**
 * The Orientation tag (0x0112) of IFD 0 in a TIFF-structured EXIF block, as Pillow's getexif() reads
 * it: 1 when absent, malformed, or not a value exif_transpose acts on.
 */
export function exifOrientation(tiff: Uint8Array): number {
  if (tiff.length < 8) return 1;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return 1;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return 1;
  const count = view.getUint16(ifd, little);
  for (let i = 0; i < count; i++) {
    const at = ifd + 2 + 12 * i;
    if (at + 12 > tiff.length) return 1;
    if (view.getUint16(at, little) !== 0x0112) continue;
    const type = view.getUint16(at + 2, little);
    if (view.getUint32(at + 4, little) !== 1) return 1;
    // A single SHORT or LONG sits left-justified in the value field.
    const value = type === 3 ? view.getUint16(at + 8, little) : type === 4 ? view.getUint32(at + 8, little) : 1;
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
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
  const truncated = (where: string): PreprocessError => new PreprocessError('truncated_image', `truncated JPEG: ${bytes.length} bytes end ${where}`);
  let width = -1;
  let height = -1;
  let components: JpegComponent[] = [];
  let hasJfif = false;
  let adobeTransform: number | null = null;
  let orientation: number | null = null;
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
    } else if (marker === 0xe1 && orientation === null && length >= 7 && String.fromCharCode(...bytes.subarray(pos + 2, pos + 7)) === 'Exif\0') {
      // Pillow keeps the first Exif APP1 only.
      orientation = exifOrientation(bytes.subarray(pos + 8, pos + length));
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
  return { format: 'jpeg', width, height, orientation: orientation ?? 1, jpeg: { components, hasJfif, adobeTransform } };
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
  return { format: 'png', width, height, orientation: pngOrientation(bytes) };
}

/** From the eXIf chunk, wherever it is before IEND (Pillow reads one after IDAT too). */
function pngOrientation(bytes: Uint8Array): number {
  let pos = 8;
  while (pos + 8 <= bytes.length) {
    const length = readU32BE(bytes, pos);
    const type = String.fromCharCode(...bytes.subarray(pos + 4, pos + 8));
    if (type === 'IEND') break;
    if (type === 'eXIf') return exifOrientation(bytes.subarray(pos + 8, Math.min(pos + 8 + length, bytes.length)));
    pos += 12 + length;
  }
  return 1;
}

/** Reads format and dimensions from the header bytes alone. */
export function probeImage(bytes: Uint8Array): ImageHeader {
  return sniffFormat(bytes) === 'jpeg' ? probeJpeg(bytes) : probePng(bytes);
}
