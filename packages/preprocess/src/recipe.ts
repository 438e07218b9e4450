import { PreprocessError } from './errors.js';
import type { ResampleFilter } from './image/resize.js';

/** How a centre crop rounds an odd margin: HF image processors floor it, torchvision rounds half to even. */
export type CropRounding = 'hf' | 'torchvision';

interface RecipeCommon {
  /** Per-channel (R, G, B) mean subtracted after rescaling. */
  mean: [number, number, number];
  /** Per-channel (R, G, B) divisor applied after the mean; never 0. */
  std: [number, number, number];
  resample: ResampleFilter;
  /** Multiplier taking uint8 to [0, 1] (1/255), or to [0, 2] before an offset of −1 (ViViT: 1/127.5). */
  rescaleFactor: number;
  /** Added after the rescale, before the mean (ViViT: −1); omitted means 0. */
  rescaleOffset?: number;
  /** Side of the square centre crop taken after the resize; omitted means no crop. */
  cropSize?: number;
  cropRounding: CropRounding;
}

/** Resize so the shorter side is `resizeShort`, the longer side int(resizeShort · long / short). */
export interface ShortestEdgeRecipe extends RecipeCommon {
  mode: 'shortest_edge';
  resizeShort: number;
}

/** Resize to `squashSize` × `squashSize` ignoring the aspect ratio (HF ViTImageProcessor, I-JEPA). */
export interface SquashRecipe extends RecipeCommon {
  mode: 'squash';
  /** The height, and the width unless `squashWidth` is given. */
  squashSize: number;
  /** Another width: a height × width resize (an input size chosen at run time, `recipeAtSize`). */
  squashWidth?: number;
}

/** A model's preprocessing, as stored in its GGUF `jepa.pre.*` keys. */
export type PreprocessRecipe = ShortestEdgeRecipe | SquashRecipe;

/** 64 Mi pixels: the largest resize intermediate the pipeline will allocate. */
export const MAX_RESIZE_PIXELS = 64 * 1024 * 1024;

/** Largest accepted side for a resize or crop target. */
const MAX_TARGET_SIDE = 65536;

function requireSide(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TARGET_SIDE) {
    throw new PreprocessError('invalid_recipe', `recipe: ${name} must be an integer in 1..${MAX_TARGET_SIDE}, got ${String(value)}`);
  }
}

function requireTriple(name: string, value: unknown, nonZero: boolean): void {
  if (!Array.isArray(value) || value.length !== 3) {
    throw new PreprocessError('invalid_recipe', `recipe: ${name} must have 3 entries, got ${JSON.stringify(value)}`);
  }
  for (const v of value) {
    if (typeof v !== 'number' || !Number.isFinite(v) || (nonZero && v === 0)) {
      throw new PreprocessError(
        'invalid_recipe',
        `recipe: ${name} entries must be finite${nonZero ? ' and non-zero' : ''}, got ${JSON.stringify(value)}`,
      );
    }
  }
}

/** Refuses a recipe that cannot describe a preprocessing, naming the offending field. */
export function validateRecipe(recipe: PreprocessRecipe): void {
  requireTriple('mean', recipe.mean, false);
  requireTriple('std', recipe.std, true);
  if (recipe.resample !== 'bilinear' && recipe.resample !== 'bicubic') {
    throw new PreprocessError('invalid_recipe', `recipe: resample must be bilinear or bicubic, got ${String(recipe.resample)}`);
  }
  if (!Number.isFinite(recipe.rescaleFactor) || recipe.rescaleFactor <= 0) {
    throw new PreprocessError('invalid_recipe', `recipe: rescaleFactor must be finite and > 0, got ${recipe.rescaleFactor}`);
  }
  if (recipe.rescaleOffset !== undefined && !Number.isFinite(recipe.rescaleOffset)) {
    throw new PreprocessError('invalid_recipe', `recipe: rescaleOffset must be finite, got ${recipe.rescaleOffset}`);
  }
  if (recipe.cropRounding !== 'hf' && recipe.cropRounding !== 'torchvision') {
    throw new PreprocessError('invalid_recipe', `recipe: cropRounding must be hf or torchvision, got ${String(recipe.cropRounding)}`);
  }
  if (recipe.cropSize !== undefined) requireSide('cropSize', recipe.cropSize);
  if (recipe.mode === 'shortest_edge') requireSide('resizeShort', recipe.resizeShort);
  else if (recipe.mode === 'squash') {
    requireSide('squashSize', recipe.squashSize);
    if (recipe.squashWidth !== undefined) requireSide('squashWidth', recipe.squashWidth);
  } else
    throw new PreprocessError('invalid_recipe', `recipe: mode must be shortest_edge or squash, got ${String((recipe as { mode: unknown }).mode)}`);
}

/**
 * The recipe at another input size: a resize straight to height × width with no crop, the recipe's filter and
 * statistics kept, as HF's processors read `size: {height, width}`. For models that run any patch grid.
 */
export function recipeAtSize(recipe: PreprocessRecipe, height: number, width: number): SquashRecipe {
  const sized: SquashRecipe = {
    mean: recipe.mean,
    std: recipe.std,
    resample: recipe.resample,
    rescaleFactor: recipe.rescaleFactor,
    ...(recipe.rescaleOffset !== undefined ? { rescaleOffset: recipe.rescaleOffset } : {}),
    cropRounding: recipe.cropRounding,
    mode: 'squash',
    squashSize: height,
    ...(width !== height ? { squashWidth: width } : {}),
  };
  validateRecipe(sized);
  return sized;
}

/** The size the resize step produces for a width × height input, refusing intermediates over MAX_RESIZE_PIXELS. */
export function resizedSize(width: number, height: number, recipe: PreprocessRecipe): { width: number; height: number } {
  let outW: number;
  let outH: number;
  if (recipe.mode === 'squash') {
    outH = recipe.squashSize;
    outW = recipe.squashWidth ?? recipe.squashSize;
  } else {
    const short = Math.min(width, height);
    const long = Math.max(width, height);
    // Python's int(size * long / short): a correctly rounded double division, truncated.
    const newLong = Math.trunc((recipe.resizeShort * long) / short);
    [outW, outH] = width <= height ? [recipe.resizeShort, newLong] : [newLong, recipe.resizeShort];
  }
  if (outW * outH > MAX_RESIZE_PIXELS) {
    throw new PreprocessError(
      'resize_too_large',
      `a ${width}x${height} input resizes to ${outW}x${outH} (${outW * outH} pixels), over the ${MAX_RESIZE_PIXELS}-pixel (64 Mpx) bound on the resize intermediate`,
    );
  }
  return { width: outW, height: outH };
}

function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Top-left corner of a centre crop of `crop` out of `size` on one axis. */
export function cropOffset(size: number, crop: number, rounding: CropRounding): number {
  const margin = size - crop;
  // HF: (size - crop) // 2; torchvision: int(round((size - crop) / 2.0)).
  return rounding === 'hf' ? Math.floor(margin / 2) : roundHalfEven(margin / 2);
}
