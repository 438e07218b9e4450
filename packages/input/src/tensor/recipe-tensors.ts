import { resampleNormalize } from '@jepa/native';
import {
  PreprocessError, normalizationTables, validateRecipe, type ImageTensor, type PreprocessRecipe, type RgbImage,
} from '@jepa/preprocess';
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
    tables.forEach((t, c) => this.#tables.set(t, c * 256));
  }

  /** The [3, H, W] side of this recipe's output for a width × height input. */
  outputSize(width: number, height: number): { width: number; height: number } {
    const g = recipeGeometry(width, height, this.recipe);
    return { width: g.crop.width, height: g.crop.height };
  }

  /** Writes img's planes into out at out[c·channelStride + offset + y·W + x] (CHW, or one frame of CTHW). */
  async writePlanes(img: RgbImage, out: Float32Array, channelStride: number, offset: number): Promise<void> {
    if (img.data.length !== img.width * img.height * 3) {
      throw new PreprocessError(
        'shape_mismatch',
        `preprocess: a ${img.width}x${img.height} RGB image needs ${img.width * img.height * 3} bytes, got ${img.data.length}`,
      );
    }
    const g = recipeGeometry(img.width, img.height, this.recipe);
    await resampleNormalize(
      {
        src: img.data, width: img.width, height: img.height, channels: 3,
        outWidth: g.outWidth, outHeight: g.outHeight, filter: this.recipe.resample, crop: g.crop,
      },
      this.#tables, out, channelStride, offset,
    );
  }

  async image(img: RgbImage): Promise<ImageTensor> {
    const { width, height } = this.outputSize(img.width, img.height);
    const data = new Float32Array(3 * width * height);
    await this.writePlanes(img, data, width * height, 0);
    return { data, shape: [3, height, width] };
  }
}
