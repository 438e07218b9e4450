/**
 * Raw libvips bands to RGB the way Pillow's convert('RGB') reaches RGB from each mode, for the
 * cases libvips's own conversion to sRGB does not match.
 */

/** 16-bit samples to their high byte (Pillow reads 16-bit RGB, RGBA and LA as 8-bit this way). */
export function highBytes(src: Uint16Array, bands: number, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels * 3);
  const gray = bands < 3;
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += bands, o += 3) {
    if (gray) {
      const v = src[i] >> 8;
      out[o] = v;
      out[o + 1] = v;
      out[o + 2] = v;
    } else {
      out[o] = src[i] >> 8;
      out[o + 1] = src[i + 1] >> 8;
      out[o + 2] = src[i + 2] >> 8;
    }
  }
  return out;
}

/**
 * 16-bit grayscale without alpha is Pillow mode I (PNG) or I;16 (TIFF), whose conversion to RGB
 * clips at 255; libvips scales instead. Band 0 is the gray; a second band (a tRNS key) is ignored.
 */
export function clippedGray(src: Uint16Array, bands: number, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels * 3);
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += bands, o += 3) {
    const v = Math.min(src[i], 255);
    out[o] = v;
    out[o + 1] = v;
    out[o + 2] = v;
  }
  return out;
}

/** Native-endian 16-bit view of libvips's ushort output, copied only if it is misaligned. */
export function asUint16(bytes: Uint8Array): Uint16Array {
  if (bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
  return new Uint16Array(bytes.slice().buffer);
}

/** Every 16-bit sample to its high byte, bands kept. */
export function shiftToBytes(src: Uint16Array): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i] >> 8;
  return out;
}
