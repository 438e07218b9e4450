import { readFileSync } from 'node:fs';
import { JepaError } from '@jepa/errors';
import { describe, expect, it } from 'vitest';
import {
  decodeImage,
  preprocessImage,
  PreprocessError,
  readImageFile,
  recipeFromPreKeys,
  type PreprocessErrorCode,
  type PreprocessRecipe,
} from '../src/index.js';
import { fixturePath } from './fixtures.js';
import { craftPng } from './png-craft.js';

const IMAGENET: Pick<PreprocessRecipe, 'mean' | 'std' | 'rescaleFactor'> = {
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
  rescaleFactor: 1 / 255,
};
const SHORT_224: PreprocessRecipe = {
  ...IMAGENET,
  mode: 'shortest_edge',
  resizeShort: 224,
  cropSize: 224,
  resample: 'bicubic',
  cropRounding: 'torchvision',
};

function codeOf(fn: () => unknown): PreprocessErrorCode | 'no error' {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PreprocessError);
    return (err as PreprocessError).code;
  }
  return 'no error';
}

describe('bad input is a typed error', () => {
  const sample = readFileSync(fixturePath('sample.jpg'));

  it('truncated JPEG', () => {
    for (const keep of [2, 20, 400, Math.floor(sample.length / 2), sample.length - 2]) {
      expect(codeOf(() => decodeImage(sample.subarray(0, keep)))).toBe('truncated_image');
    }
    expect(() => decodeImage(sample.subarray(0, 400))).toThrow(/truncated JPEG: 400 bytes/);
  });

  it('zero-sized PNG', () => {
    expect(codeOf(() => decodeImage(craftPng(0, 5, false)))).toBe('empty_image');
    expect(codeOf(() => decodeImage(craftPng(7, 0, false)))).toBe('empty_image');
    expect(() => decodeImage(craftPng(0, 5, false))).toThrow(/0x5/);
  });

  it('16384x1 image: decodes, then the shortest-edge resize is refused by the 64 Mpx bound', () => {
    const img = decodeImage(craftPng(16384, 1, true));
    expect([img.width, img.height]).toEqual([16384, 1]);
    let error: unknown;
    try {
      preprocessImage(img, SHORT_224);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PreprocessError);
    expect((error as PreprocessError).code).toBe('resize_too_large');
    expect((error as PreprocessError).message).toMatch(/16384x1/);
    expect((error as PreprocessError).message).toMatch(/67108864/);
    // The bound is an aspect-ratio limit: squashing the same image is fine.
    const squashed = preprocessImage(img, { ...SHORT_224, mode: 'squash', squashSize: 32, cropSize: undefined });
    expect(squashed.shape).toEqual([3, 32, 32]);
  });

  it('accepts the largest aspect ratio under the bound and refuses the next', () => {
    // 224 * floor(224 * long / 1) <= 2^26 holds up to long = 1337.
    expect(() => preprocessImage({ width: 1337, height: 1, data: new Uint8Array(1337 * 3) }, SHORT_224)).not.toThrow();
    expect(codeOf(() => preprocessImage({ width: 1338, height: 1, data: new Uint8Array(1338 * 3) }, SHORT_224))).toBe('resize_too_large');
  });

  it('non-image bytes', () => {
    expect(codeOf(() => decodeImage(new TextEncoder().encode('{"not": "an image"}')))).toBe('unsupported_format');
    expect(codeOf(() => decodeImage(new Uint8Array(0)))).toBe('unsupported_format');
    expect(() => decodeImage(new Uint8Array([0x47, 0x49, 0x46, 0x38]))).toThrow(/not a JPEG or PNG image \(4 bytes, starting 47 49 46 38\)/);
  });

  it('a header that promises more pixels than the decode bound is refused before decoding', () => {
    const huge = craftPng(100000, 100000, false);
    expect(codeOf(() => decodeImage(huge))).toBe('image_too_large');
    expect(() => decodeImage(huge)).toThrow(/100000x100000/);
    expect(codeOf(() => decodeImage(craftPng(64, 64, true), { maxPixels: 4095 }))).toBe('image_too_large');
  });

  it('truncated or corrupt PNG data', () => {
    const png = craftPng(40, 30, true);
    expect(codeOf(() => decodeImage(png.subarray(0, 20)))).toBe('truncated_image');
    const broken = Buffer.from(png);
    broken[40] ^= 0xff; // inside IDAT: CRC mismatch
    expect(['corrupt_image', 'truncated_image']).toContain(codeOf(() => decodeImage(broken)));
  });

  it('missing file', () => {
    expect(codeOf(() => readImageFile(fixturePath('no-such-image.png')))).toBe('io_error');
  });

  it('crop larger than the resized image, and invalid recipes', () => {
    const img = { width: 10, height: 10, data: new Uint8Array(300) };
    expect(codeOf(() => preprocessImage(img, { ...SHORT_224, resizeShort: 200 }))).toBe('crop_exceeds_image');
    expect(codeOf(() => preprocessImage(img, { ...SHORT_224, std: [0.2, 0, 0.2] }))).toBe('invalid_recipe');
    expect(codeOf(() => preprocessImage(img, { ...SHORT_224, mean: [0, Number.NaN, 0] }))).toBe('invalid_recipe');
    expect(codeOf(() => preprocessImage(img, { ...SHORT_224, resizeShort: 0 }))).toBe('invalid_recipe');
    expect(codeOf(() => preprocessImage(img, { ...SHORT_224, resizeShort: 2.5 }))).toBe('invalid_recipe');
  });
});

describe('recipeFromPreKeys (jepa.pre.* as @jepa/gguf parses them)', () => {
  const pre = {
    mean: [0.485, 0.456, 0.406],
    std: [0.229, 0.224, 0.225],
    resize: { mode: 'short' as const, size: 292 },
    crop: 256,
    resample: 'bilinear',
    rescale: 1 / 255,
    cropRounding: 'round',
  };

  it('maps short/squash and round/floor onto the recipe', () => {
    expect(recipeFromPreKeys(pre)).toEqual({
      mode: 'shortest_edge',
      resizeShort: 292,
      cropSize: 256,
      resample: 'bilinear',
      mean: [0.485, 0.456, 0.406],
      std: [0.229, 0.224, 0.225],
      rescaleFactor: 1 / 255,
      cropRounding: 'torchvision',
    });
    const squash = recipeFromPreKeys({ ...pre, resize: { mode: 'squash', size: 224 }, crop: 224, cropRounding: 'floor' });
    expect(squash).toMatchObject({ mode: 'squash', squashSize: 224, cropRounding: 'hf' });
  });

  it('refuses what the resizer cannot do and malformed values', () => {
    expect(codeOf(() => recipeFromPreKeys({ ...pre, resample: 'nearest' }))).toBe('invalid_recipe');
    expect(codeOf(() => recipeFromPreKeys({ ...pre, mean: [0.5] }))).toBe('invalid_recipe');
    expect(codeOf(() => recipeFromPreKeys({ ...pre, std: [1, 0, 1] }))).toBe('invalid_recipe');
    expect(codeOf(() => recipeFromPreKeys({ ...pre, cropRounding: 'ceil' }))).toBe('invalid_recipe');
  });
});

describe('each refusal is a JepaError of the kind its code means', () => {
  function kindOf(fn: () => unknown): string {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(JepaError);
      return (err as PreprocessError).kind;
    }
    return 'no error';
  }

  it('a damaged image is input; past a pixel bound is budget; a missing file is io', () => {
    expect(kindOf(() => decodeImage(new Uint8Array(0)))).toBe('input');
    expect(kindOf(() => decodeImage(craftPng(100000, 100000, false)))).toBe('budget');
    expect(kindOf(() => preprocessImage({ width: 1338, height: 1, data: new Uint8Array(1338 * 3) }, SHORT_224))).toBe('budget');
    expect(kindOf(() => readImageFile(fixturePath('no-such-image.png')))).toBe('io');
  });

  it('ffmpeg missing is io, a decode past its time is timeout, and an explicit kind wins', () => {
    expect(new PreprocessError('ffmpeg_missing', 'm').kind).toBe('io');
    expect(new PreprocessError('video_timeout', 'm').kind).toBe('timeout');
    expect(new PreprocessError('video_corrupt', 'm').kind).toBe('input');
    expect(new PreprocessError('invalid_argument', 'm', { kind: 'internal' }).kind).toBe('internal');
    const cause = new Error('EACCES');
    expect(new PreprocessError('io_error', 'm', { cause }).cause).toBe(cause);
  });
});
