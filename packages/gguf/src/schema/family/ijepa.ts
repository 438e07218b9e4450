// I-JEPA (families.md §1): an image ViT with no CLS and a stored 2-D sincos table; Meta files may carry the
// table-position masked predictor.
import { defineFamily } from './define.js';

export const ijepa = defineFamily({
  name: 'ijepa',
  traits: { pos: 'sincos2d', predictors: ['masked'] },
  tiny: {
    // the HF port's recipe: squash to the trained size, mean = std = 0.5
    pre: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], resize: { mode: 'squash', size: 8 }, resample: 'bilinear' },
  },
});
