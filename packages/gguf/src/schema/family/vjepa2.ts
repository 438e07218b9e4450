// V-JEPA 2 (families.md §3): a video ViT with tiled 3-D RoPE; its masked predictor, or V-JEPA 2-AC's; the attentive probe.
import { defineFamily } from './define.js';
import { tinyRopePredictor } from './tiny-predictors.js';

export const vjepa2 = defineFamily({
  name: 'vjepa2',
  traits: { pos: 'rope3d', ropeLayout: 'tiled', video: true, predictors: ['masked', 'ac'], head: 'attentive' },
  tiny: { predictor: (enc) => tinyRopePredictor(enc, false) },
});
