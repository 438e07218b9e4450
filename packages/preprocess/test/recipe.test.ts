import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cropOffset, decodeImage, preprocessImage, readNpy, resizeAndCropU8, type PreprocessRecipe } from '../src/index.js';
import { firstDifference, fixturePath, readFixture, readJsonFixture, ulpDistance } from './fixtures.js';

interface Case {
  family: string;
  input: string;
  recipe: PreprocessRecipe;
  u8: string;
  levels: string;
  reference: string;
}
const manifest = readJsonFixture<{ inputs: Record<string, { file: string }>; cases: Case[] }>('recipes', 'manifest.json');

function loadInput(name: string) {
  return decodeImage(readFileSync(fixturePath('recipes', manifest.inputs[name].file)));
}

describe('full recipes against each family reference processor', () => {
  for (const c of manifest.cases) {
    it(`${c.family} on ${c.input} (${c.reference}): uint8 stage byte-identical, float32 within 1 ulp`, () => {
      const img = loadInput(c.input);
      const golden = readNpy(readFixture('recipes', c.u8));
      const [h, w] = golden.shape;
      const u8 = resizeAndCropU8(img, c.recipe);
      expect([u8.height, u8.width]).toEqual([h, w]);
      expect(firstDifference(u8.data, golden.data as Uint8Array)).toBe('identical');

      const levels = readNpy(fixturePath('recipes', c.levels)).data as Float32Array;
      const tensor = preprocessImage(img, c.recipe);
      expect(tensor.shape).toEqual([3, h, w]);
      let worst = 0;
      const goldenU8 = golden.data as Uint8Array;
      for (let ch = 0; ch < 3; ch++) {
        for (let i = 0; i < h * w; i++) {
          const expected = levels[ch * 256 + goldenU8[i * 3 + ch]];
          worst = Math.max(worst, ulpDistance(tensor.data[ch * h * w + i], expected));
        }
      }
      expect(worst).toBeLessThanOrEqual(1);
    });
  }

  it('negative control: a mean off by 1e-6 is more than 1 ulp from the reference floats', () => {
    const c = manifest.cases[0];
    const golden = readNpy(readFixture('recipes', c.u8));
    const [h, w] = golden.shape;
    const levels = readNpy(fixturePath('recipes', c.levels)).data as Float32Array;
    const nudged: PreprocessRecipe = { ...c.recipe, mean: [c.recipe.mean[0] + 1e-6, c.recipe.mean[1], c.recipe.mean[2]] };
    const tensor = preprocessImage(loadInput(c.input), nudged);
    let worst = 0;
    for (let i = 0; i < h * w; i++) {
      worst = Math.max(worst, ulpDistance(tensor.data[i], levels[(golden.data as Uint8Array)[i * 3]]));
    }
    expect(worst).toBeGreaterThan(1);
  });

  it('negative control: the other crop rounding convention fails the uint8 golden', () => {
    const c = manifest.cases.find((k) => k.recipe.cropSize !== undefined && k.recipe.mode === 'shortest_edge')!;
    const img = loadInput(c.input);
    const golden = readNpy(readFixture('recipes', c.u8)).data as Uint8Array;
    const flipped: PreprocessRecipe = { ...c.recipe, cropRounding: c.recipe.cropRounding === 'hf' ? 'torchvision' : 'hf' };
    expect(firstDifference(resizeAndCropU8(img, flipped).data, golden)).not.toBe('identical');
  });

  it('rounds odd crop margins: HF floors, torchvision rounds half to even', () => {
    expect([1, 3, 5, 7].map((m) => cropOffset(224 + m, 224, 'hf'))).toEqual([0, 1, 2, 3]);
    expect([1, 3, 5, 7].map((m) => cropOffset(224 + m, 224, 'torchvision'))).toEqual([0, 2, 2, 4]);
    expect(cropOffset(230, 224, 'hf')).toBe(3);
    expect(cropOffset(230, 224, 'torchvision')).toBe(3);
  });
});
