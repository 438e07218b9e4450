// The jepa.pre.* recipe: read from an HF (video) preprocessor config when the checkpoint has one,
// else the family's documented default (families.md).
import type { PreprocessSpec, Resample } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { Json } from '../source.js';
import { ConfigReader } from './config.js';

const f32 = Math.fround;
export const IMAGENET_MEAN = [0.485, 0.456, 0.406];
export const IMAGENET_STD = [0.229, 0.224, 0.225];
const RESCALE = 1 / 255;

/** PIL resample codes as HF stores them. */
function resampleOf(code: unknown, where: string): Resample {
  switch (code) {
    case 0:
      return 'nearest';
    case 2:
    case undefined:
      return 'bilinear';
    case 3:
      return 'bicubic';
    default:
      throw new ConvertError('CONVERT_BAD_CONFIG', `${where}: resample ${JSON.stringify(code)} is not nearest (0), bilinear (2) or bicubic (3)`);
  }
}

function sideOf(size: unknown, where: string, what: string): { short?: number; square?: number } {
  if (typeof size === 'number') return { short: size };
  if (typeof size === 'object' && size !== null) {
    const s = size as Record<string, unknown>;
    if (typeof s.shortest_edge === 'number') return { short: s.shortest_edge };
    if (typeof s.height === 'number' && s.height === s.width) return { square: s.height };
  }
  throw new ConvertError('CONVERT_BAD_CONFIG', `${where}: ${what} ${JSON.stringify(size)} is neither {shortest_edge} nor a square {height, width}`);
}

/**
 * HF image processors floor an odd crop margin; the video processors (torchvision-backed) round it.
 * `squash` resizes straight to the square (ViTImageProcessor without a crop).
 */
export function recipeFromHfProcessor(json: Json, where: string, kind: 'image' | 'video'): PreprocessSpec {
  const c = new ConfigReader(json, where);
  const mean = (c.raw('image_mean') ?? IMAGENET_MEAN) as number[];
  const std = (c.raw('image_std') ?? IMAGENET_STD) as number[];
  const size = sideOf(c.raw('size'), where, 'size');
  const cropping = c.bool('do_center_crop', false) && c.has('crop_size');
  const crop = cropping ? sideOf(c.raw('crop_size'), where, 'crop_size') : null;
  const cropSide = crop?.square ?? crop?.short;
  const resample = resampleOf(c.raw('resample'), where);
  const rescale = c.bool('do_rescale', true) ? c.num('rescale_factor', RESCALE) : 1;
  const cropRounding = kind === 'video' ? 'round' : 'floor';
  const common = { mean: mean.map(f32), std: std.map(f32), resample, rescale: f32(rescale), cropRounding } as const;
  if (size.short !== undefined) return { ...common, resize: { mode: 'short', size: size.short }, crop: cropSide ?? size.short };
  return { ...common, resize: { mode: 'squash', size: size.square! }, crop: cropSide ?? size.square! };
}

/** torchvision-style eval transform: shortest edge → centre crop, ImageNet statistics. */
export function shortEdgeRecipe(resizeShort: number, crop: number, resample: Resample): PreprocessSpec {
  return {
    mean: IMAGENET_MEAN.map(f32),
    std: IMAGENET_STD.map(f32),
    resize: { mode: 'short', size: resizeShort },
    crop,
    resample,
    rescale: f32(RESCALE),
    cropRounding: 'round',
  };
}

/** V-JEPA recipe: short side int(crop · 256 / 224), bilinear, centre crop (families.md §2.5, §3.7). */
export function vjepaRecipe(crop: number): PreprocessSpec {
  return shortEdgeRecipe(Math.floor((crop * 256) / 224), crop, 'bilinear');
}
