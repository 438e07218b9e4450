import { PreprocessError } from '../errors.js';
import { cropOffset, type CropRounding } from '../recipe.js';
import type { RgbImage } from './types.js';

/** Square centre crop of side `crop`; refuses a crop larger than the image rather than padding. */
export function centerCropU8(img: RgbImage, crop: number, rounding: CropRounding): RgbImage {
  if (crop > img.width || crop > img.height) {
    throw new PreprocessError('crop_exceeds_image', `centre crop ${crop}x${crop} does not fit in a ${img.width}x${img.height} image`);
  }
  if (crop === img.width && crop === img.height) return img;
  const top = cropOffset(img.height, crop, rounding);
  const left = cropOffset(img.width, crop, rounding);
  const out = new Uint8Array(crop * crop * 3);
  const rowBytes = crop * 3;
  for (let y = 0; y < crop; y++) {
    const from = ((top + y) * img.width + left) * 3;
    out.set(img.data.subarray(from, from + rowBytes), y * rowBytes);
  }
  return { width: crop, height: crop, data: out };
}
