import { readFile } from 'node:fs/promises';
import { MAX_DECODE_PIXELS, PreprocessError, type RgbImage } from '@jepa/preprocess';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { asUint16, clippedGray, highBytes, shiftToBytes } from './bands.js';
import { cmykToRgb } from './cmyk.js';
import { dctScaledSize, dctShrink, type DctShrink } from './dct-shrink.js';
import { decodeFailure } from './errors.js';
import { firstGifFrame, gifFirstFrameRgb } from './gif.js';
import { sniff, type DecodableFormat, type Sniffed } from './magic.js';
import { sharp } from './sharp-config.js';

export interface SharpDecodeOptions {
  /** Refuse images with more pixels than this, from the header, before decoding (default MAX_DECODE_PIXELS). */
  maxPixels?: number;
  /** Apply the EXIF orientation as Pillow's ImageOps.exif_transpose does (default true). */
  exifOrient?: boolean;
  /**
   * Fast decode: let libjpeg shrink a JPEG by DCT scaling while it decodes (off when absent). The
   * pixels are then no longer Pillow's full decode.
   */
  shrinkOnLoad?: ShrinkOnLoad;
}

/** What fast decode needs to pick a JPEG's DCT shrink (the rule is in dct-shrink.ts). */
export interface ShrinkOnLoad {
  /** The file the bytes were read from: libvips takes the shrink as a load option of a file, and sharp passes none for a buffer. */
  path: string;
  /** The smallest upright raster the caller needs from an image that stands upright as width × height. */
  atLeast: (width: number, height: number) => { width: number; height: number };
}

const READS = 'JPEG, PNG, WebP, AVIF, TIFF and GIF';

/** How the decoded bands become Pillow's RGB. */
type Route = 'srgb8' | 'gif' | 'gray16-clip' | 'high-byte16' | 'cmyk';

function route(meta: Metadata, format: DecodableFormat, bytes: Uint8Array, label: string): Route {
  const space = meta.space ?? 'unknown';
  const depth = meta.depth ?? 'unknown';
  if (space === 'cmyk' && (depth === 'uchar' || depth === 'ushort')) return 'cmyk';
  if (format === 'gif' && depth === 'uchar' && space === 'srgb') return 'gif';
  if (depth === 'uchar' && (space === 'srgb' || space === 'b-w')) return 'srgb8';
  if (depth === 'ushort' && space === 'grey16') {
    // PNG colour type 0 (gray, maybe a tRNS key) is Pillow mode I; type 4 (gray + alpha) opens as 8-bit LA.
    const ownAlpha = format === 'png' ? bytes[25] === 4 : meta.hasAlpha === true;
    return ownAlpha ? 'high-byte16' : 'gray16-clip';
  }
  if (depth === 'ushort' && space === 'rgb16') return 'high-byte16';
  throw new PreprocessError(
    'unsupported_format',
    `${label} with ${meta.channels ?? '?'} ${space} bands of ${depth} samples is not supported (8/16-bit RGB, gray and CMYK are)`,
  );
}

/**
 * The largest maxPixels accepted: sharp's own default limit (0x3FFF squared). libvips aborts the
 * process (a double free) when one raw output passes 4 GiB, and 5 bands of 16 bits at this size
 * stay under it.
 */
export const MAX_SHARP_PIXELS = 0x3fff * 0x3fff;

function checkMaxPixels(value: number | undefined): number {
  const maxPixels = value ?? MAX_DECODE_PIXELS;
  if (!Number.isSafeInteger(maxPixels) || maxPixels < 1 || maxPixels > MAX_SHARP_PIXELS) {
    throw new PreprocessError('invalid_argument', `maxPixels must be an integer from 1 to ${MAX_SHARP_PIXELS}, got ${value}`);
  }
  return maxPixels;
}

async function readHeader(bytes: Uint8Array, sniffed: Sniffed): Promise<Metadata> {
  try {
    // The header is read without the pixel limit so the refusal below can say what the file declares.
    return await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch (err) {
    throw decodeFailure(err, sniffed, bytes);
  }
}

function pipeline(source: Uint8Array | string, meta: Metadata, how: Route, maxPixels: number, exifOrient: boolean): Sharp {
  const input: SharpOptions = {
    // 'error' refuses truncated data (as Pillow's "image file is truncated" does, TIFF included, which
    // 'truncated' lets through) and still decodes what libjpeg only warns about, as Pillow does.
    failOn: 'error',
    limitInputPixels: maxPixels,
    // Pillow's convert('RGB') never applies an embedded profile.
    ignoreIcc: true,
    pages: 1,
    page: 0,
  };
  let image = sharp(source, input);
  // Neither Pillow nor libvips reads an orientation from a GIF.
  if (exifOrient && how !== 'gif') image = image.autoOrient();
  switch (how) {
    case 'gif':
      return image.ensureAlpha().raw();
    case 'srgb8':
      return image.removeAlpha().toColourspace('srgb').raw();
    case 'cmyk':
      // A CMYK pipeline keeps the bands as stored; any other goes through a CMYK ICC profile.
      return image
        .pipelineColourspace('cmyk')
        .toColourspace('cmyk')
        .raw({ depth: meta.depth === 'ushort' ? 'ushort' : 'uchar' });
    default:
      // Kept in its own 16-bit space: the bands come out as stored, alpha included.
      return image.toColourspace(meta.space!).raw({ depth: 'ushort' });
  }
}

/**
 * Decodes an image to RGB uint8 HWC through sharp (libvips), pixel for pixel what Pillow 9.4 gives
 * for `ImageOps.exif_transpose(Image.open(f)).convert('RGB')` (see README.md for the exceptions).
 * Animated GIF/WebP and multi-page TIFF give their first frame.
 */
export async function decodeImage(bytes: Uint8Array, options: SharpDecodeOptions = {}): Promise<RgbImage> {
  return (await decodeRgb(bytes, options, options.exifOrient ?? true)).image;
}

/** Pixels as stored, with the EXIF orientation (1..8) that would turn them upright. */
export interface StoredImage {
  image: RgbImage;
  orientation: number;
  /** The DCT shrink the JPEG was decoded at: 1 (the full raster) unless shrinkOnLoad asked for less. */
  shrink: DctShrink;
  /** The stored size the header declares, which `image` covers at 1/shrink. */
  full: { width: number; height: number };
}

/**
 * decodeImage with the orientation left to the caller: the addon's resampler reads the stored
 * pixels upright through strides, which costs nothing, where libvips's rotation of a whole photo
 * costs about as much as decoding it. `exifOrient: false` reports orientation 1.
 */
export async function decodeImageStored(bytes: Uint8Array, options: SharpDecodeOptions = {}): Promise<StoredImage> {
  const { image, meta, how, shrink, full } = await decodeRgb(bytes, options, false);
  const orientation = (options.exifOrient ?? true) && how !== 'gif' ? (meta.orientation ?? 1) : 1;
  return { image, orientation: Number.isInteger(orientation) && orientation >= 1 && orientation <= 8 ? orientation : 1, shrink, full };
}

/** Whether the EXIF orientation (5..8; anything else stands as stored) swaps width and height. */
function sideways(meta: Metadata): boolean {
  const o = meta.orientation ?? 1;
  return Number.isInteger(o) && o >= 5 && o <= 8;
}

/** The shrink fast decode allows: JPEGs that decode to 8-bit RGB or gray only, the rule in the stored orientation. */
function shrinkFor(
  meta: Metadata,
  how: Route,
  format: DecodableFormat,
  size: { width: number; height: number },
  upright: boolean,
  fast: ShrinkOnLoad | undefined,
): DctShrink {
  if (!fast || format !== 'jpeg' || how !== 'srgb8') return 1;
  const turned = upright && sideways(meta);
  const need = turned ? fast.atLeast(size.height, size.width) : fast.atLeast(size.width, size.height);
  return dctShrink(size.width, size.height, turned ? { width: need.height, height: need.width } : need);
}

async function decodeRgb(
  bytes: Uint8Array,
  options: SharpDecodeOptions,
  autoOrient: boolean,
): Promise<{ image: RgbImage; meta: Metadata; how: Route; shrink: DctShrink; full: { width: number; height: number } }> {
  const maxPixels = checkMaxPixels(options.maxPixels);
  const sniffed = sniff(bytes);
  if (sniffed.format === null) {
    throw new PreprocessError('unsupported_format', `${sniffed.label} (${bytes.length} bytes) is not an image this decoder reads (${READS})`);
  }
  const meta = await readHeader(bytes, sniffed);
  const label = meta.format === 'heif' ? (meta.compression === 'av1' ? 'AVIF' : 'HEIF') : sniffed.label;
  if (meta.format === 'heif' && meta.compression !== 'av1') {
    throw new PreprocessError('unsupported_format', `HEIF with ${meta.compression ?? 'unknown'} compression is not supported (AVIF is)`);
  }
  const gif = sniffed.format === 'gif' ? firstGifFrame(bytes) : null;
  // Pillow's GIF is the logical screen, which libnsgif may have replaced by the frame's size.
  const width = Math.max(meta.width ?? 0, gif?.screenWidth ?? 0);
  const height = Math.max(meta.pageHeight ?? meta.height ?? 0, gif?.screenHeight ?? 0);
  if (width === 0 || height === 0) throw new PreprocessError('empty_image', `${label} header declares a ${width}x${height} image`);
  if (width * height > maxPixels) {
    throw new PreprocessError(
      'image_too_large',
      `${label} of ${width}x${height} (${width * height} pixels) exceeds the decode bound of ${maxPixels} pixels`,
    );
  }
  const how = route(meta, sniffed.format, bytes, label);
  const full = { width, height };
  const shrink = shrinkFor(meta, how, sniffed.format, full, options.exifOrient ?? true, options.shrinkOnLoad);
  // libvips reads `[shrink=N]` after a file name as jpegload's option (the last brackets only).
  const source = shrink > 1 ? `${options.shrinkOnLoad!.path}[shrink=${shrink}]` : bytes;
  let data: Buffer;
  let info: { width: number; height: number; channels: number };
  try {
    ({ data, info } = await pipeline(source, meta, how, maxPixels, autoOrient).toBuffer({ resolveWithObject: true }));
  } catch (err) {
    throw decodeFailure(err, sniffed, bytes);
  }
  if (shrink > 1) checkShrunk(info, full, shrink, autoOrient && sideways(meta), options.shrinkOnLoad!.path);
  return { image: toRgb(data, info, how, meta, gif), meta, how, shrink, full };
}

/** The shrunk decode read the file again: a raster of another size means the file changed in between. */
function checkShrunk(
  info: { width: number; height: number },
  full: { width: number; height: number },
  shrink: DctShrink,
  turned: boolean,
  path: string,
): void {
  const want = dctScaledSize(full.width, full.height, shrink);
  const [w, h] = turned ? [want.height, want.width] : [want.width, want.height];
  if (info.width !== w || info.height !== h) {
    throw new PreprocessError(
      'io_error',
      `${path} changed while it was read: its header declared ${full.width}x${full.height}, the 1/${shrink} decode gave ${info.width}x${info.height}`,
    );
  }
}

function toRgb(
  data: Buffer,
  info: { width: number; height: number; channels: number },
  how: Route,
  meta: Metadata,
  gif: ReturnType<typeof firstGifFrame>,
): RgbImage {
  const pixels = info.width * info.height;
  switch (how) {
    case 'srgb8':
      return { width: info.width, height: info.height, data };
    case 'gif':
      return gifFirstFrameRgb(data, info.width, info.height, gif);
    case 'cmyk': {
      const bytes8 = meta.depth === 'ushort' ? shiftToBytes(asUint16(data)) : data;
      return { width: info.width, height: info.height, data: cmykToRgb(bytes8, info.channels, pixels) };
    }
    case 'gray16-clip':
      return { width: info.width, height: info.height, data: clippedGray(asUint16(data), info.channels, pixels) };
    case 'high-byte16':
      return { width: info.width, height: info.height, data: highBytes(asUint16(data), info.channels, pixels) };
  }
}

/** readFile + decodeImage; a file that cannot be read is an `io_error`. */
export async function readImage(path: string, options: SharpDecodeOptions = {}): Promise<RgbImage> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new PreprocessError('io_error', `cannot read image ${path}: ${(err as Error).message}`, { cause: err });
  }
  return decodeImage(bytes, options);
}
