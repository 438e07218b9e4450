import type { PreprocessRecipe } from './recipe.js';
import type { RgbImage } from './image/types.js';

/**
 * For each channel, the float32 value of every uint8 level: fround(u · rescale), plus the offset
 * in float32 where there is one (ViViT's rescale then −1), then the float32 subtraction of
 * fround(mean) and float32 division by fround(std), the operation order numpy (HF) and
 * torchvision's Normalize both use.
 */
export function normalizationTables(recipe: PreprocessRecipe): Float32Array[] {
  const tables: Float32Array[] = [];
  for (let c = 0; c < 3; c++) {
    const mean = Math.fround(recipe.mean[c]);
    const std = Math.fround(recipe.std[c]);
    const table = new Float32Array(256);
    for (let u = 0; u < 256; u++) {
      const rescaled = Math.fround(u * recipe.rescaleFactor);
      const scaled = recipe.rescaleOffset ? Math.fround(rescaled + recipe.rescaleOffset) : rescaled;
      table[u] = Math.fround(Math.fround(scaled - mean) / std);
    }
    tables.push(table);
  }
  return tables;
}

/**
 * Writes an HWC uint8 image as normalised planes into `out`: channel c of this image lands at
 * `out[c * channelStride + offset + y * width + x]`, which serves CHW (stride H·W) and CTHW
 * (stride T·H·W, offset t·H·W) alike.
 */
export function writeNormalizedPlanes(img: RgbImage, tables: Float32Array[], out: Float32Array, channelStride: number, offset: number): void {
  const pixels = img.width * img.height;
  const src = img.data;
  for (let c = 0; c < 3; c++) {
    const table = tables[c];
    const base = c * channelStride + offset;
    for (let i = 0, p = c; i < pixels; i++, p += 3) out[base + i] = table[src[p]];
  }
}
