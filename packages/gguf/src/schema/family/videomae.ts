// VideoMAE: a video ViT with the 1-D sinusoid table (baked by the converter), and with mean pooling no final
// norm and a linear head on the normalised token mean.
import { defineFamily } from './define.js';

export const videomae = defineFamily({
  name: 'videomae',
  traits: { pos: 'sincos1d', video: true, head: 'linear', finalNormOptional: true },
  // the released classifiers mean-pool: no final norm
  tiny: { encoder: { finalNorm: false } },
});
