import { join } from 'node:path';
import { MAX_DECODE_PIXELS, PreprocessError, pngChunk, rgbPngHeader, type PreprocessErrorCode } from '@jepa/preprocess';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DECODE_THREADS, MAX_SHARP_PIXELS, decodeImage, decodeThreads, readImage, setDecodeThreads } from '../src/decode/index.js';
import { DECODE_FIXTURES, IDENTICAL, compareRgb, fixture, golden, index } from './decode-fixtures.js';

async function refusal(work: Promise<unknown>): Promise<{ code: PreprocessErrorCode; message: string }> {
  try {
    await work;
  } catch (err) {
    expect(err).toBeInstanceOf(PreprocessError);
    return { code: (err as PreprocessError).code, message: (err as PreprocessError).message };
  }
  throw new Error('expected a refusal, the decode succeeded');
}

/** An 8-bit RGB PNG header declaring width x height, with one empty IDAT. */
function hugePng(width: number, height: number): Buffer {
  return Buffer.concat([
    rgbPngHeader(width, height),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** A real small JPEG whose frame header is rewritten to declare width x height. */
function hugeJpeg(width: number, height: number): Buffer {
  const jpeg = Buffer.from(fixture('baseline420.jpg'));
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

/** A real small GIF whose logical screen is rewritten to width x height. */
function hugeGif(width: number, height: number): Buffer {
  const gif = Buffer.from(fixture('animated.gif'));
  gif.writeUInt16LE(width, 6);
  gif.writeUInt16LE(height, 8);
  return gif;
}

const decodable = Object.entries(index).filter(([, e]) => e.golden !== undefined);

describe('sharp decode against Pillow 9.4 goldens: exif_transpose(Image.open(f)).convert("RGB")', () => {
  it('covers every format the decoder claims', () => {
    const formats = new Set(decodable.map(([, e]) => e.format));
    expect([...formats].sort()).toEqual(['GIF', 'JPEG', 'PNG', 'TIFF', 'WEBP']);
  });

  for (const [name, entry] of decodable) {
    it(`${name} (${entry.format} mode ${entry.pilMode}${entry.orientation !== 1 ? `, orientation ${entry.orientation}` : ''}) is byte-identical`, async () => {
      const img = await decodeImage(fixture(name));
      expect(compareRgb(img, golden(entry.golden!))).toEqual(IDENTICAL);
      expect([img.width, img.height]).toEqual([entry.width, entry.height]);
    });
    if (entry.stored) {
      it(`${name} with exifOrient: false is byte-identical to the stored raster`, async () => {
        const img = await decodeImage(fixture(name), { exifOrient: false });
        expect(compareRgb(img, golden(entry.stored!))).toEqual(IDENTICAL);
      });
    }
  }

  it('exifOrient: false changes nothing for a file without an orientation', async () => {
    const bytes = fixture('baseline420.jpg');
    expect(compareRgb(await decodeImage(bytes, { exifOrient: false }), await decodeImage(bytes))).toEqual(IDENTICAL);
  });

  it('negative control: the comparison sees one changed byte and a transposed shape', () => {
    const want = golden('orient6.jpg.pil.npy.gz');
    const changed = { ...want, data: Uint8Array.from(want.data) };
    changed.data[1234] ^= 1;
    expect(compareRgb(changed, want)).toEqual({ sameShape: true, maxAbs: 1, meanAbs: 1 / want.data.length, differing: 1 });
    expect(compareRgb({ width: want.height, height: want.width, data: want.data }, want).sameShape).toBe(false);
    // Stored and upright rasters hold the same bytes in another order: they must not compare equal.
    const stored = golden('orient6.jpg.stored.pil.npy.gz');
    expect(compareRgb({ ...stored, width: want.width, height: want.height }, want).maxAbs).toBeGreaterThan(0);
  });
});

describe('AVIF (no Pillow reference: Pillow 9.4 cannot read AVIF)', () => {
  // The source is Pillow's decode of a JPEG; sharp encodes it to AVIF here, at run time.
  const source = golden('baseline420.jpg.pil.npy.gz');
  const raw = () => sharp(Buffer.from(source.data), { raw: { width: source.width, height: source.height, channels: 3 } });

  it('lossless AVIF decodes to the source exactly', async () => {
    const avif = await raw().avif({ lossless: true }).toBuffer();
    expect(compareRgb(await decodeImage(avif), source)).toEqual(IDENTICAL);
  });

  it('lossy AVIF (quality 60, 4:2:0) stays within the measured bound of its source', async () => {
    const avif = await raw().avif({ quality: 60 }).toBuffer();
    const diff = compareRgb(await decodeImage(avif), source);
    // Measured with aom 3.15.1 / libheif 1.23.5: max 41, mean 3.62.
    expect(diff.sameShape).toBe(true);
    expect(diff.maxAbs).toBeLessThanOrEqual(48);
    expect(diff.meanAbs).toBeLessThan(4);
  });

  it('a truncated AVIF is truncated_image, named AVIF, on one line', async () => {
    const avif = await raw().avif({ lossless: true }).toBuffer();
    const r = await refusal(decodeImage(avif.subarray(0, Math.floor(avif.length * 0.6))));
    expect(r.code).toBe('truncated_image');
    expect(r.message).toMatch(/^truncated AVIF: /);
    expect(r.message).not.toMatch(/\n/);
  });
});

describe('refusals', () => {
  const expected: Record<string, { code: PreprocessErrorCode; message: RegExp }> = {
    'truncated.jpg': {
      code: 'truncated_image',
      message: /^truncated JPEG: the data ends before the image does \(1584 bytes; libvips: VipsJpeg: premature end of JPEG image\)$/,
    },
    'truncated.png': { code: 'truncated_image', message: /^truncated PNG: the data ends before the image does \(406 bytes; / },
    'truncated.gif': { code: 'truncated_image', message: /^truncated GIF: .*Unexpected end of GIF source data/ },
    'truncated.tif': { code: 'truncated_image', message: /^truncated TIFF: .*Read error at scanline/ },
    'corrupt.png': { code: 'corrupt_image', message: /^corrupt PNG: vipspng: libpng read error \(610 bytes\)$/ },
    'empty.jpg': {
      code: 'unsupported_format',
      message: /^empty file \(0 bytes\) is not an image this decoder reads \(JPEG, PNG, WebP, AVIF, TIFF and GIF\)$/,
    },
  };

  it('has an expectation for every file Pillow refuses', () => {
    expect(
      Object.keys(index)
        .filter((n) => index[n].refused)
        .sort(),
    ).toEqual(Object.keys(expected).sort());
  });

  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: ${want.code} (Pillow: ${index[name]?.pillowError})`, async () => {
      const r = await refusal(decodeImage(fixture(name)));
      expect(r.code).toBe(want.code);
      expect(r.message).toMatch(want.message);
      expect(r.message).not.toMatch(/\n/);
    });
  }

  it('a truncated JPEG is refused at every cut', async () => {
    const jpeg = fixture('progressive420.jpg');
    for (const keep of [0.3, 0.5, 0.9, 0.99]) {
      expect((await refusal(decodeImage(jpeg.subarray(0, Math.floor(jpeg.length * keep))))).code).toBe('truncated_image');
    }
  });

  it('text and a GGUF file are unsupported_format, named as what they are', async () => {
    const text = await refusal(decodeImage(new TextEncoder().encode('{"not": "an image"}\n')));
    expect(text).toEqual({
      code: 'unsupported_format',
      message: 'text (20 bytes) is not an image this decoder reads (JPEG, PNG, WebP, AVIF, TIFF and GIF)',
    });
    const gguf = Buffer.alloc(64);
    gguf.write('GGUF', 0, 'latin1');
    gguf.writeUInt32LE(3, 4);
    const r = await refusal(decodeImage(gguf));
    expect(r).toEqual({
      code: 'unsupported_format',
      message: 'GGUF file (64 bytes) is not an image this decoder reads (JPEG, PNG, WebP, AVIF, TIFF and GIF)',
    });
    expect((await refusal(decodeImage(Buffer.from([0x42, 0x4d, 0, 0, 0, 0])))).message).toMatch(/^BMP /);
    expect((await refusal(decodeImage(Buffer.from([0x00, 0x01, 0x02, 0xfe])))).message).toMatch(/^unknown data \(starting 00 01 02 fe\)/);
  });

  it('a missing file is io_error', async () => {
    expect((await refusal(readImage(join(DECODE_FIXTURES, 'no-such-file.png')))).code).toBe('io_error');
  });

  it('maxPixels outside 1..MAX_SHARP_PIXELS is invalid_argument', async () => {
    for (const maxPixels of [0, -1, 2.5, MAX_SHARP_PIXELS + 1, Number.NaN]) {
      expect((await refusal(decodeImage(fixture('rgb8.png'), { maxPixels }))).code).toBe('invalid_argument');
    }
  });
});

describe('decompression-bomb bound, from the header, before any pixel decode', () => {
  const bombs: [string, Buffer, string][] = [
    ['PNG', hugePng(100_000, 100_000), 'PNG of 100000x100000 (10000000000 pixels)'],
    ['JPEG', hugeJpeg(60_000, 60_000), 'JPEG of 60000x60000 (3600000000 pixels)'],
    ['GIF', hugeGif(65_535, 65_535), 'GIF of 65535x65535 (4294836225 pixels)'],
  ];
  for (const [format, bytes, what] of bombs) {
    it(`${format}: ${what} is image_too_large, fast`, async () => {
      const start = performance.now();
      const r = await refusal(decodeImage(bytes));
      const ms = performance.now() - start;
      expect(r.code).toBe('image_too_large');
      expect(r.message).toBe(`${what} exceeds the decode bound of ${MAX_DECODE_PIXELS} pixels`);
      // A decode would take seconds and gigabytes (libvips aborts the process past 4 GiB of output).
      expect(ms).toBeLessThan(500);
    });
  }

  it('the bound is inclusive and counts the pixels of the stored raster', async () => {
    const entry = index['orient6.jpg'];
    const pixels = entry.width! * entry.height!;
    await expect(decodeImage(fixture('orient6.jpg'), { maxPixels: pixels })).resolves.toMatchObject({ width: 30, height: 48 });
    const r = await refusal(decodeImage(fixture('orient6.jpg'), { maxPixels: pixels - 1 }));
    expect(r).toEqual({ code: 'image_too_large', message: `JPEG of 48x30 (1440 pixels) exceeds the decode bound of 1439 pixels` });
  });

  it('a PNG just over a small bound is refused, one at the bound decodes', async () => {
    await expect(decodeImage(fixture('rgb8.png'), { maxPixels: 19 * 11 })).resolves.toMatchObject({ width: 19, height: 11 });
    expect((await refusal(decodeImage(fixture('rgb8.png'), { maxPixels: 19 * 11 - 1 }))).code).toBe('image_too_large');
  });
});

describe('sharp settings', () => {
  it('keeps libvips operation cache off', () => {
    expect(sharp.cache().items.max).toBe(0);
    expect(sharp.cache().memory.max).toBe(0);
  });

  it('uses the chosen thread count and lets it be changed', () => {
    expect(decodeThreads()).toBe(DEFAULT_DECODE_THREADS);
    setDecodeThreads(1);
    expect(decodeThreads()).toBe(1);
    setDecodeThreads(DEFAULT_DECODE_THREADS);
    expect(() => setDecodeThreads(0)).toThrow(PreprocessError);
  });

  it('takes a Uint8Array view that starts inside a larger buffer', async () => {
    const bytes = fixture('orient6.jpg');
    const backing = new Uint8Array(bytes.length + 11);
    backing.set(bytes, 5);
    const img = await decodeImage(backing.subarray(5, 5 + bytes.length));
    expect(compareRgb(img, golden('orient6.jpg.pil.npy.gz'))).toEqual(IDENTICAL);
  });

  it('readImage reads the file and decodes it like decodeImage', async () => {
    const img = await readImage(join(DECODE_FIXTURES, 'orient3.jpg'));
    expect(compareRgb(img, golden('orient3.jpg.pil.npy.gz'))).toEqual(IDENTICAL);
  });
});
