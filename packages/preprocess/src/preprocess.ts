import { PreprocessError } from './errors.js';
import { centerCropU8 } from './image/crop.js';
import { resizeU8 } from './image/resize.js';
import type { RgbImage } from './image/types.js';
import { normalizationTables, writeNormalizedPlanes } from './normalize.js';
import { resizedSize, validateRecipe, type PreprocessRecipe } from './recipe.js';

export interface ImageTensor {
  data: Float32Array;
  shape: [number, number, number];
}

export interface ClipTensor {
  data: Float32Array;
  shape: [number, number, number, number];
}

/** Frames as `readVideoFrames` / `readFramesNpy` return them: HWC rgb24 buffers of one size. */
export interface FrameSet {
  frames: Uint8Array[];
  width: number;
  height: number;
}

function checkImage(img: RgbImage, what: string): void {
  if (!Number.isInteger(img.width) || !Number.isInteger(img.height) || img.width < 1 || img.height < 1) {
    throw new PreprocessError('invalid_argument', `${what}: image is ${img.width}x${img.height}`);
  }
  if (img.data.length !== img.width * img.height * 3) {
    throw new PreprocessError(
      'shape_mismatch',
      `${what}: a ${img.width}x${img.height} RGB image needs ${img.width * img.height * 3} bytes, got ${img.data.length}`,
    );
  }
}

/** The uint8 stage of a recipe: resize (shortest edge or squash), then the centre crop. */
export function resizeAndCropU8(img: RgbImage, recipe: PreprocessRecipe): RgbImage {
  validateRecipe(recipe);
  checkImage(img, 'preprocess');
  const size = resizedSize(img.width, img.height, recipe);
  const resized = resizeU8(img, size.width, size.height, recipe.resample);
  return recipe.cropSize === undefined ? resized : centerCropU8(resized, recipe.cropSize, recipe.cropRounding);
}

/** One image to the normalised float32 CHW tensor the encoder takes. */
export function preprocessImage(img: RgbImage, recipe: PreprocessRecipe): ImageTensor {
  const cropped = resizeAndCropU8(img, recipe);
  const planes = cropped.width * cropped.height;
  const data = new Float32Array(3 * planes);
  writeNormalizedPlanes(cropped, normalizationTables(recipe), data, planes, 0);
  return { data, shape: [3, cropped.height, cropped.width] };
}

function asImages(clip: RgbImage[] | FrameSet): RgbImage[] {
  if (Array.isArray(clip)) return clip;
  return clip.frames.map((data) => ({ width: clip.width, height: clip.height, data }));
}

/** A clip to the normalised float32 CTHW tensor; every frame goes through the same recipe. */
export function preprocessClip(clip: RgbImage[] | FrameSet, recipe: PreprocessRecipe): ClipTensor {
  const frames = asImages(clip);
  if (frames.length === 0) throw new PreprocessError('invalid_argument', 'preprocessClip: the clip has no frames');
  const tables = normalizationTables(recipe);
  const first = frames[0];
  let data: Float32Array | undefined;
  let height = 0;
  let width = 0;
  for (let t = 0; t < frames.length; t++) {
    const frame = frames[t];
    if (frame.width !== first.width || frame.height !== first.height) {
      throw new PreprocessError(
        'shape_mismatch',
        `preprocessClip: frame ${t} is ${frame.width}x${frame.height}, frame 0 is ${first.width}x${first.height}`,
      );
    }
    const cropped = resizeAndCropU8(frame, recipe);
    if (data === undefined) {
      width = cropped.width;
      height = cropped.height;
      data = new Float32Array(3 * frames.length * height * width);
    }
    writeNormalizedPlanes(cropped, tables, data, frames.length * height * width, t * height * width);
  }
  return { data: data as Float32Array, shape: [3, frames.length, height, width] };
}
