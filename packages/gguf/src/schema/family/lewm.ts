// LeWorldModel: an HF ViT encoder (CLS, learned table) with the action-conditioned predictor it cannot be without.
import { defineFamily } from './define.js';
import { tinyActionPredictor } from './tiny-predictors.js';

export const lewm = defineFamily({
  name: 'lewm',
  traits: { pos: 'learned', predictors: ['action'], predictorRequired: true },
  tensors: ['cls_token'],
  tiny: { encoder: { lnEps: Math.fround(1e-12) }, predictor: tinyActionPredictor },
});
