import { describe, expect, it } from 'vitest';
import { preprocessClip, preprocessImage, PreprocessError, sampleIndices, stackNCHW, stackNCTHW, type PreprocessRecipe } from '../src/index.js';
import { proceduralImage } from './fixtures.js';

const RECIPE: PreprocessRecipe = {
  mode: 'shortest_edge',
  resizeShort: 20,
  cropSize: 16,
  resample: 'bilinear',
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
  rescaleFactor: 1 / 255,
  cropRounding: 'torchvision',
};

describe('sampleIndices (numpy round(linspace(0, T-1, n)))', () => {
  // Expected values printed by numpy 1.24: np.round(np.linspace(0, t - 1, n)).astype(int).
  it('matches numpy, including ties to even and the pinned last sample', () => {
    expect(sampleIndices(100, 16)).toEqual([0, 7, 13, 20, 26, 33, 40, 46, 53, 59, 66, 73, 79, 86, 92, 99]);
    expect(sampleIndices(10, 4)).toEqual([0, 3, 6, 9]);
    expect(sampleIndices(6, 3)).toEqual([0, 2, 5]); // 2.5 -> 2
    expect(sampleIndices(8, 3)).toEqual([0, 4, 7]); // 3.5 -> 4
    expect(sampleIndices(5, 8)).toEqual([0, 1, 1, 2, 2, 3, 3, 4]);
    expect(sampleIndices(1, 4)).toEqual([0, 0, 0, 0]);
    expect(sampleIndices(7, 1)).toEqual([0]);
    expect(sampleIndices(2, 5)).toEqual([0, 0, 0, 1, 1]); // 0.25, 0.5 -> 0, 0.75 -> 1
  });

  it('refuses empty clips and sample counts', () => {
    expect(() => sampleIndices(0, 4)).toThrow(PreprocessError);
    expect(() => sampleIndices(10, 0)).toThrow(PreprocessError);
  });
});

describe('batching', () => {
  const a = { width: 30, height: 24, data: proceduralImage(30, 24) };
  const b = { width: 30, height: 24, data: proceduralImage(30, 24).map((v) => 255 - v) };

  it('stacks images into NCHW in order', () => {
    const ta = preprocessImage(a, RECIPE);
    const tb = preprocessImage(b, RECIPE);
    const batch = stackNCHW([ta, tb]);
    expect(batch.shape).toEqual([2, 3, 16, 16]);
    expect(batch.data.subarray(0, ta.data.length)).toEqual(ta.data);
    expect(batch.data.subarray(ta.data.length)).toEqual(tb.data);
  });

  it('lays a clip out as CTHW: frame t of channel c equals that frame preprocessed alone', () => {
    const clip = preprocessClip([a, b, a], RECIPE);
    expect(clip.shape).toEqual([3, 3, 16, 16]);
    const plane = 16 * 16;
    const tb = preprocessImage(b, RECIPE);
    for (let c = 0; c < 3; c++) {
      expect(clip.data.subarray((c * 3 + 1) * plane, (c * 3 + 2) * plane)).toEqual(tb.data.subarray(c * plane, (c + 1) * plane));
    }
    const fromFrameSet = preprocessClip({ frames: [a.data, b.data, a.data], width: 30, height: 24 }, RECIPE);
    expect(fromFrameSet.data).toEqual(clip.data);
    const batch = stackNCTHW([clip, clip]);
    expect(batch.shape).toEqual([2, 3, 3, 16, 16]);
  });

  it('refuses mismatched shapes', () => {
    const small = preprocessImage(a, { ...RECIPE, cropSize: 8 });
    expect(() => stackNCHW([preprocessImage(a, RECIPE), small])).toThrow(/item 1 has shape \[3, 8, 8\]/);
    expect(() => stackNCHW([])).toThrow(PreprocessError);
    expect(() => preprocessClip([a, { width: 24, height: 30, data: a.data }], RECIPE)).toThrow(/frame 1 is 24x30/);
  });
});
