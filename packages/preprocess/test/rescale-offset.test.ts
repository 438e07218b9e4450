// ViViT's recipe: rescale by 1/127.5, subtract 1 (the offset), then normalise again with mean = std = 0.5.
// Each level's float32 value follows numpy's order of float32 operations; the offset is not folded into
// the mean (that would round differently) and a recipe without one keeps its tables.
import { describe, expect, it } from 'vitest';
import { normalizationTables, validateRecipe, type PreprocessRecipe } from '../src/index.js';

const f = Math.fround;
const VIVIT: PreprocessRecipe = {
  mode: 'shortest_edge',
  resizeShort: 256,
  cropSize: 224,
  resample: 'bilinear',
  mean: [0.5, 0.5, 0.5],
  std: [0.5, 0.5, 0.5],
  rescaleFactor: 1 / 127.5,
  rescaleOffset: -1,
  cropRounding: 'hf',
};

describe('rescale offset (jepa.pre.offset)', () => {
  it('applies x·scale, then + offset, then (− mean) / std, each rounded to float32', () => {
    const [table] = normalizationTables(VIVIT);
    for (let u = 0; u < 256; u++) expect(table![u]).toBe(f(f(f(f(u * (1 / 127.5)) - 1) - 0.5) / 0.5));
    expect(table![0]).toBe(-3);
    expect(table![255]).toBeCloseTo(1, 6);
  });

  it('negative control: without the offset the levels are 2 apart', () => {
    const [withOffset] = normalizationTables(VIVIT);
    const [without] = normalizationTables({ ...VIVIT, rescaleOffset: undefined });
    for (let u = 0; u < 256; u++) expect(without![u]! - withOffset![u]!).toBeCloseTo(2, 5);
  });

  it('refuses a non-finite offset', () => {
    expect(() => validateRecipe({ ...VIVIT, rescaleOffset: Number.NaN })).toThrow(/rescaleOffset must be finite/);
  });
});
