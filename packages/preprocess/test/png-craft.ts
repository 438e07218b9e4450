import { deflateSync } from 'node:zlib';
import { pngChunk as chunk, rgbPngHeader } from '../src/image/png-bytes.js';

/** An 8-bit RGB PNG with a declared geometry; pixel rows are only written when `withPixels`. */
export function craftPng(width: number, height: number, withPixels: boolean): Buffer {
  const parts = [rgbPngHeader(width, height)];
  if (withPixels) {
    const raw = Buffer.alloc(height * (1 + width * 3));
    for (let y = 0; y < height; y++) for (let x = 0; x < width * 3; x++) raw[y * (1 + width * 3) + 1 + x] = (x * 7 + y) & 255;
    parts.push(chunk('IDAT', deflateSync(raw)));
  }
  parts.push(chunk('IEND', new Uint8Array(0)));
  return Buffer.concat(parts);
}
