import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { PreprocessError } from '../errors.js';
import { isReconstructable, libjpegRgbFromComponents } from './jpeg-color.js';
import { orientRgb } from './orient.js';
import { probeImage, type ImageHeader } from './probe.js';
import type { RgbImage } from './types.js';

/** Pillow's decompression-bomb error threshold (2 × Image.MAX_IMAGE_PIXELS). */
export const MAX_DECODE_PIXELS = 2 * 89_478_485;

export interface DecodeOptions {
  /** Refuse images with more pixels than this (checked from the header, before decoding). */
  maxPixels?: number;
  /** Apply the EXIF orientation as Pillow's ImageOps.exif_transpose does (default true). */
  exifOrient?: boolean;
}

function decodeJpeg(bytes: Uint8Array, header: ImageHeader): RgbImage {
  const pixels = header.width * header.height;
  const reconstruct = header.jpeg !== undefined && isReconstructable(header.jpeg);
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    // jpeg-js already writes grayscale as R=G=B and converts Adobe CMYK/YCCK to RGB. Three-component
    // files are taken as raw component values and finished the way libjpeg finishes them.
    decoded = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: false,
      colorTransform: reconstruct ? false : undefined,
      maxResolutionInMP: Math.ceil(pixels / 1e6) + 1,
      maxMemoryUsageInMB: Math.max(512, Math.ceil((pixels * 12) / 2 ** 20) + 64),
    });
  } catch (err) {
    throw new PreprocessError('corrupt_image', `cannot decode ${header.width}x${header.height} JPEG: ${(err as Error).message}`, { cause: err });
  }
  if (decoded.width !== header.width || decoded.height !== header.height) {
    throw new PreprocessError('corrupt_image', `JPEG decoded to ${decoded.width}x${decoded.height}, header says ${header.width}x${header.height}`);
  }
  const data = reconstruct ? libjpegRgbFromComponents(decoded.data, decoded.width, decoded.height, header.jpeg!) : decoded.data;
  return { width: decoded.width, height: decoded.height, data };
}

/** Whether the chunk sequence stops before a complete IEND chunk. */
function pngEndsEarly(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 8; pos + 8 <= bytes.length; ) {
    const end = pos + 12 + view.getUint32(pos);
    if (view.getUint32(pos + 4) === 0x49454e44) return end > bytes.length; // 'IEND'
    pos = end;
  }
  return true;
}

/**
 * PNG to RGB with Pillow's `convert('RGB')` semantics: alpha dropped (not composited), 16-bit
 * colour reduced to its high byte, 16-bit grayscale (Pillow mode I) clipped to 255, sub-byte
 * grayscale expanded to 0..255, tRNS colour keys left as their colour.
 */
function decodePng(bytes: Uint8Array, header: ImageHeader): RgbImage {
  let png: ReturnType<typeof PNG.sync.read>;
  try {
    png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { skipRescale: true });
  } catch (err) {
    const message = (err as Error).message;
    const code = /unexpected end|truncat|end of input/i.test(message) || pngEndsEarly(bytes) ? 'truncated_image' : 'corrupt_image';
    throw new PreprocessError(code, `cannot decode ${header.width}x${header.height} PNG: ${message}`, { cause: err });
  }
  const { width, height, depth } = png;
  const colorType: number = png.colorType;
  const transColor = (png as unknown as { transColor?: number[] }).transColor;
  const src = png.data as unknown as ArrayLike<number>;
  const out = new Uint8Array(width * height * 3);
  const isPalette = colorType === 3;
  const isGray = colorType === 0 || colorType === 4;
  const maxSample = 2 ** depth - 1;
  const toByte = (v: number): number => {
    if (isPalette || depth === 8) return v;
    if (depth === 16) return isGray && colorType === 0 ? Math.min(v, 255) : v >> 8;
    return Math.floor((v * 255) / maxSample + 0.5);
  };
  const keyed = !isPalette && colorType !== 4 && colorType !== 6 && transColor !== undefined;
  for (let i = 0, o = 0; i < width * height * 4; i += 4, o += 3) {
    let r = src[i];
    let g = src[i + 1];
    let b = src[i + 2];
    if (keyed && src[i + 3] === 0) {
      // pngjs blanks colour-keyed pixels; Pillow keeps their colour.
      r = transColor[0];
      g = transColor.length === 3 ? transColor[1] : r;
      b = transColor.length === 3 ? transColor[2] : r;
    }
    out[o] = toByte(r);
    out[o + 1] = toByte(g);
    out[o + 2] = toByte(b);
  }
  return { width, height, data: out };
}

/**
 * Decodes JPEG or PNG bytes to RGB uint8 HWC, then applies the EXIF orientation unless
 * `exifOrient: false` (which gives the raster as stored, Pillow's plain `convert('RGB')`).
 */
export function decodeImage(bytes: Uint8Array, options: DecodeOptions = {}): RgbImage {
  const maxPixels = options.maxPixels ?? MAX_DECODE_PIXELS;
  const header = probeImage(bytes);
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    throw new PreprocessError(
      'image_too_large',
      `${header.format.toUpperCase()} of ${header.width}x${header.height} (${pixels} pixels) exceeds the decode bound of ${maxPixels} pixels`,
    );
  }
  const img = header.format === 'jpeg' ? decodeJpeg(bytes, header) : decodePng(bytes, header);
  return options.exifOrient === false ? img : orientRgb(img, header.orientation);
}

export function readImageFile(path: string, options: DecodeOptions = {}): RgbImage {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new PreprocessError('io_error', `cannot read image ${path}: ${(err as Error).message}`, { cause: err });
  }
  return decodeImage(bytes, options);
}
