// LeWorldModel: an HF ViT encoder (CLS, learned table) with the action-conditioned predictor it cannot be without.
import { defineFamily } from './define.js';
import { tinyActionPredictor } from './tiny-predictors.js';

export const lewm = defineFamily({
  name: 'lewm',
  traits: { pos: 'learned', nCls: 1, predictors: ['action'], predictorRequired: true },
  tiny: { encoder: { lnEps: Math.fround(1e-12) }, predictor: tinyActionPredictor },
});
