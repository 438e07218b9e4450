import type { RgbImage } from '@jepa/preprocess';

/**
 * Pillow's first GIF frame is palette indices on the whole logical screen: transparent pixels keep
 * their palette colour, and what the frame does not cover is the transparency index (index 0
 * without one). libvips gives transparent black for both; this puts Pillow's colours back. libnsgif
 * also drops a logical screen over 2048 pixels wide or high for the frame's own size, where Pillow
 * keeps the screen.
 */

export interface FirstFrame {
  screenWidth: number;
  screenHeight: number;
  palette: Uint8Array;
  transparent: number | null;
  left: number;
  top: number;
  width: number;
  height: number;
}

function skipSubBlocks(bytes: Uint8Array, pos: number): number {
  while (pos < bytes.length && bytes[pos] !== 0) pos += bytes[pos] + 1;
  return pos + 1;
}

const u16 = (bytes: Uint8Array, at: number): number => bytes[at] | (bytes[at + 1] << 8);

/** The first image descriptor, its palette and its graphic control extension's transparency. */
export function firstGifFrame(bytes: Uint8Array): FirstFrame | null {
  if (bytes.length < 13) return null;
  const screenFlags = bytes[10];
  let pos = 13;
  let palette: Uint8Array = new Uint8Array(0);
  if (screenFlags & 0x80) {
    const size = 3 << ((screenFlags & 7) + 1);
    palette = bytes.subarray(pos, pos + size);
    pos += size;
  }
  let transparent: number | null = null;
  while (pos < bytes.length) {
    const block = bytes[pos];
    if (block === 0x21) {
      if (bytes[pos + 1] === 0xf9 && bytes[pos + 2] >= 4) transparent = bytes[pos + 3] & 1 ? bytes[pos + 6] : null;
      pos = skipSubBlocks(bytes, pos + 2);
    } else if (block === 0x2c) {
      if (pos + 10 > bytes.length) return null;
      const flags = bytes[pos + 9];
      if (flags & 0x80) palette = bytes.subarray(pos + 10, pos + 10 + (3 << ((flags & 7) + 1)));
      return {
        screenWidth: u16(bytes, 6),
        screenHeight: u16(bytes, 8),
        palette,
        transparent,
        left: u16(bytes, pos + 1),
        top: u16(bytes, pos + 3),
        width: u16(bytes, pos + 5),
        height: u16(bytes, pos + 7),
      };
    } else {
      return null;
    }
  }
  return null;
}

/**
 * RGBA from libvips (w x h: the logical screen, or the frame alone when libnsgif dropped the
 * screen) to Pillow's RGB of the first frame on the logical screen.
 */
export function gifFirstFrameRgb(rgba: Uint8Array, w: number, h: number, frame: FirstFrame | null): RgbImage {
  if (frame === null) return { width: w, height: h, data: dropAlpha(rgba, w * h) };
  const onScreen = w === frame.screenWidth && h === frame.screenHeight;
  const width = frame.screenWidth;
  const height = frame.screenHeight;
  // Where canvas pixel (x, y) is in libvips's output.
  const ox = onScreen ? 0 : frame.left;
  const oy = onScreen ? 0 : frame.top;
  const colour = (index: number): number[] => [0, 1, 2].map((c) => frame.palette[index * 3 + c] ?? 0);
  const background = colour(frame.transparent ?? 0);
  const out = new Uint8Array(width * height * 3);
  for (let y = 0, o = 0; y < height; y++) {
    const rowInside = y >= frame.top && y < frame.top + frame.height && y - oy < h;
    for (let x = 0; x < width; x++, o += 3) {
      const inside = rowInside && x >= frame.left && x < frame.left + frame.width && x - ox < w;
      const i = inside ? ((y - oy) * w + (x - ox)) * 4 : -1;
      if (!inside || rgba[i + 3] === 0) {
        out[o] = background[0];
        out[o + 1] = background[1];
        out[o + 2] = background[2];
      } else {
        out[o] = rgba[i];
        out[o + 1] = rgba[i + 1];
        out[o + 2] = rgba[i + 2];
      }
    }
  }
  return { width, height, data: out };
}

function dropAlpha(rgba: Uint8Array, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels * 3);
  for (let p = 0; p < pixels; p++) out.set(rgba.subarray(p * 4, p * 4 + 3), p * 3);
  return out;
}
