// V-JEPA v1 (families.md §2): a video ViT with a stored 3-D sincos table, the table-position masked predictor
// and the attentive probe (no self-attention blocks before its cross-attention).
import { defineFamily } from './define.js';

export const vjepa = defineFamily({
  name: 'vjepa',
  traits: { pos: 'sincos3d', video: true, predictors: ['masked'], head: 'attentive' },
  tiny: { headDepth: 0 },
});
