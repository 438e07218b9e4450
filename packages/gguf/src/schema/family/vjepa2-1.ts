// V-JEPA 2.1 (families.md §4): V-JEPA 2 with interleaved RoPE rescaled to a reference grid, an image tokenizer
// with modality vectors, hierarchy norms in place of enc.norm, and a predictor that reads them all.
import { defineFamily } from './define.js';
import { tinyRopePredictor } from './tiny-predictors.js';

export const vjepa2_1 = defineFamily({
  name: 'vjepa2_1',
  traits: {
    pos: 'rope3d',
    ropeLayout: 'interleaved',
    video: true,
    predictors: ['masked'],
    head: 'attentive',
    imageTokenizer: true,
    hierarchyNorms: true,
    predictorModalityVectors: true,
  },
  tiny: {
    encoder: {
      rope: { layout: 'interleaved', theta: 10000, interpolate: true, refGrid: 4 },
      imgTubeletSize: 1,
      hierLayers: [0, 1],
    },
    predictor: (enc) => tinyRopePredictor(enc, true),
    headByDefault: false,
  },
});
