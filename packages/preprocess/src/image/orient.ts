import type { RgbImage } from './types.js';

/**
 * Applies an EXIF orientation the way Pillow's ImageOps.exif_transpose does: 2 FLIP_LEFT_RIGHT,
 * 3 ROTATE_180, 4 FLIP_TOP_BOTTOM, 5 TRANSPOSE, 6 ROTATE_270, 7 TRANSVERSE, 8 ROTATE_90.
 * 1 and anything else return the image unchanged.
 */
export function orientRgb(img: RgbImage, orientation: number): RgbImage {
  if (!Number.isInteger(orientation) || orientation < 2 || orientation > 8) return img;
  const { width: w, height: h, data } = img;
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(data.length);
  // The source pixel of output (x, y) is (sx0 + x * dxx + y * dxy, sy0 + x * dyx + y * dyy).
  const [sx0, dxx, dxy, sy0, dyx, dyy] = {
    2: [w - 1, -1, 0, 0, 0, 1],
    3: [w - 1, -1, 0, h - 1, 0, -1],
    4: [0, 1, 0, h - 1, 0, -1],
    5: [0, 0, 1, 0, 1, 0],
    6: [0, 0, 1, h - 1, -1, 0],
    7: [w - 1, 0, -1, h - 1, -1, 0],
    8: [w - 1, 0, -1, 0, 1, 0],
  }[orientation]!;
  const stepX = 3 * (dxx + dyx * w);
  for (let y = 0, o = 0; y < outH; y++) {
    let s = 3 * (sx0 + y * dxy + (sy0 + y * dyy) * w);
    for (let x = 0; x < outW; x++, o += 3, s += stepX) {
      out[o] = data[s];
      out[o + 1] = data[s + 1];
      out[o + 2] = data[s + 2];
    }
  }
  return { width: outW, height: outH, data: out };
}
