// ViViT: a video ViT with a CLS and a learned table over CLS + patches, a linear head on the CLS.
import { defineFamily } from './define.js';

export const vivit = defineFamily({
  name: 'vivit',
  traits: { pos: 'learned', video: true, nCls: 1, head: 'linear' },
});
