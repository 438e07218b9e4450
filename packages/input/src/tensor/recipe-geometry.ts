import { PreprocessError, cropOffset, resizedSize, type PreprocessRecipe } from '@jepa/preprocess';

/** Where a recipe takes a width × height image: the full resize, then the crop window inside it. */
export interface RecipeGeometry {
  outWidth: number;
  outHeight: number;
  crop: { left: number; top: number; width: number; height: number };
}

/** The same sizes and offsets as @jepa/preprocess's resizeAndCropU8, refusals included. */
export function recipeGeometry(width: number, height: number, recipe: PreprocessRecipe): RecipeGeometry {
  const size = resizedSize(width, height, recipe);
  const c = recipe.cropSize;
  if (c === undefined) return { outWidth: size.width, outHeight: size.height, crop: { left: 0, top: 0, width: size.width, height: size.height } };
  if (c > size.width || c > size.height) {
    throw new PreprocessError('crop_exceeds_image', `centre crop ${c}x${c} does not fit in a ${size.width}x${size.height} image`);
  }
  const left = cropOffset(size.width, c, recipe.cropRounding);
  const top = cropOffset(size.height, c, recipe.cropRounding);
  return { outWidth: size.width, outHeight: size.height, crop: { left, top, width: c, height: c } };
}
