// The one writer of plain test images: 8-bit RGB pixels to PNG bytes (one IDAT, no filters).
import { deflateSync } from 'node:zlib';
import { pngChunk, rgbPngHeader } from '@jepa/preprocess';

/** A PNG of `rgb` (width x height x 3 bytes, row-major, interleaved). */
export function rgbPng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  if (rgb.length !== height * stride) throw new Error(`rgbPng: ${rgb.length} bytes for ${width}x${height} RGB (want ${height * stride})`);
  const raw = Buffer.alloc(height * (1 + stride));
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (1 + stride) + 1);
  return Buffer.concat([rgbPngHeader(width, height), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A PNG whose byte `i` of row `y` (i in 0..3*width-1, R G B interleaved) is `byte(i, y)`, taken mod 256. */
export function pngOf(width: number, height: number, byte: (i: number, y: number) => number): Buffer {
  const stride = width * 3;
  const rgb = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) for (let i = 0; i < stride; i++) rgb[y * stride + i] = byte(i, y);
  return rgbPng(width, height, rgb);
}

/** An RGB PNG of seeded pixels: a different `seed` gives a different image. */
export function seededPng(width: number, height: number, seed: number): Buffer {
  let s = (seed * 2654435761) >>> 0;
  return pngOf(width, height, (i, y) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 24) ^ (i * 7 + y * 3);
  });
}
