import { resampleNormalize } from '@jepa/native';
import { PreprocessError, normalizationTables, validateRecipe, type ImageTensor, type PreprocessRecipe, type RgbImage } from '@jepa/preprocess';
import { recipeGeometry } from './recipe-geometry.js';

/**
 * A recipe run in the addon: resize, crop and normalise in one native call off the main thread,
 * bit-exact with @jepa/preprocess's preprocessImage. Only the pixels the crop keeps are resampled.
 */
export class RecipeTensors {
  readonly #tables: Float32Array;

  constructor(readonly recipe: PreprocessRecipe) {
    validateRecipe(recipe);
    const tables = normalizationTables(recipe);
    this.#tables = new Float32Array(768);
    for (const [c, t] of tables.entries()) this.#tables.set(t, c * 256);
  }

  /** The [3, H, W] side of this recipe's output for a width × height input (upright: orientation applied). */
  outputSize(width: number, height: number, orientation = 1): { width: number; height: number } {
    const [w, h] = orientation >= 5 ? [height, width] : [width, height];
    const g = recipeGeometry(w, h, this.recipe);
    return { width: g.crop.width, height: g.crop.height };
  }

  /**
   * Writes img's planes into out at out[c·channelStride + offset + y·W + x] (CHW, or one frame of
   * CTHW). `orientation` (EXIF 1..8) says how the stored pixels stand: the recipe sees them upright.
   * `full` is the stored size img was shrunk from on load (fast decode): the resize and crop are
   * that size's, so the output has the shape the full decode gives.
   */
  async writePlanes(
    img: RgbImage,
    out: Float32Array,
    channelStride: number,
    offset: number,
    orientation = 1,
    full: { width: number; height: number } = img,
  ): Promise<void> {
    if (img.data.length !== img.width * img.height * 3) {
      throw new PreprocessError(
        'shape_mismatch',
        `preprocess: a ${img.width}x${img.height} RGB image needs ${img.width * img.height * 3} bytes, got ${img.data.length}`,
      );
    }
    const [w, h] = orientation >= 5 ? [full.height, full.width] : [full.width, full.height];
    const g = recipeGeometry(w, h, this.recipe);
    await resampleNormalize(
      {
        src: img.data,
        width: img.width,
        height: img.height,
        channels: 3,
        orientation,
        outWidth: g.outWidth,
        outHeight: g.outHeight,
        filter: this.recipe.resample,
        crop: g.crop,
      },
      this.#tables,
      out,
      channelStride,
      offset,
    );
  }

  async image(img: RgbImage, orientation = 1, full: { width: number; height: number } = img): Promise<ImageTensor> {
    const { width, height } = this.outputSize(full.width, full.height, orientation);
    const data = new Float32Array(3 * width * height);
    await this.writePlanes(img, data, width * height, 0, orientation, full);
    return { data, shape: [3, height, width] };
  }
}
