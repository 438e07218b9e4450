// The native recipe (the addon's resize, crop and normalise) on the family reference goldens, and
// bit for bit against @jepa/preprocess's TypeScript recipe on the same pixels.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeImage, preprocessImage, readNpy, type PreprocessRecipe } from '@jepa/preprocess';
import { RecipeTensors } from '../src/tensor/recipe-tensors.js';

const dir = resolve(__dirname, '../../../fixtures/preprocess/recipes');
interface Case {
  family: string;
  input: string;
  recipe: PreprocessRecipe;
  u8: string;
  levels: string;
}
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { inputs: Record<string, { file: string }>; cases: Case[] };
const load = (name: string) => decodeImage(readFileSync(join(dir, manifest.inputs[name]!.file)));
const golden = (file: string) => readNpy(file.endsWith('.gz') ? gunzipSync(readFileSync(join(dir, file))) : join(dir, file));

function bitsEqual(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe('native recipe against each family reference processor', () => {
  for (const c of manifest.cases) {
    it(`${c.family} on ${c.input}: every float the reference's uint8 levels give, and bit-identical to the TypeScript recipe`, async () => {
      const img = load(c.input);
      const u8 = golden(c.u8);
      const [h, w] = u8.shape as [number, number];
      const levels = golden(c.levels).data as Float32Array;
      const native = await new RecipeTensors(c.recipe).image(img);
      expect(native.shape).toEqual([3, h, w]);
      const g = u8.data as Uint8Array;
      let worst = 0;
      for (let ch = 0; ch < 3; ch++)
        for (let i = 0; i < h * w; i++) worst = Math.max(worst, Math.abs(native.data[ch * h * w + i]! - levels[ch * 256 + g[i * 3 + ch]!]!));
      // The reference's float levels come from numpy/torch; within float32 rounding of them.
      expect(worst).toBeLessThan(1e-6);
      expect(bitsEqual(native.data, preprocessImage(img, c.recipe).data)).toBe(true);
    });
  }

  it('negative control: the other filter is not bit-identical', async () => {
    const c = manifest.cases[0]!;
    const img = load(c.input);
    const other: PreprocessRecipe = { ...c.recipe, resample: c.recipe.resample === 'bicubic' ? 'bilinear' : 'bicubic' };
    const native = await new RecipeTensors(other).image(img);
    expect(bitsEqual(native.data, preprocessImage(img, c.recipe).data)).toBe(false);
  });

  it('refuses a crop larger than the resized image, as the TypeScript recipe does', async () => {
    const c = manifest.cases.find((k) => k.recipe.cropSize !== undefined)!;
    const tiny = { width: 4, height: 4, data: new Uint8Array(48) };
    const recipe: PreprocessRecipe = { ...c.recipe, mode: 'squash', squashSize: 8, cropSize: 16 } as PreprocessRecipe;
    await expect(new RecipeTensors(recipe).image(tiny)).rejects.toThrow(/centre crop 16x16 does not fit in a 8x8 image/);
  });
});
