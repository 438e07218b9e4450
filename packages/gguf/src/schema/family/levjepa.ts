// LeVJEPA: a video ViT with a CLS and tiled 3-D RoPE whose attention may be block-causal over frames.
import { defineFamily } from './define.js';

export const levjepa = defineFamily({
  name: 'levjepa',
  traits: { pos: 'rope3d', ropeLayout: 'tiled', video: true, nCls: 1, blockCausal: true },
  tiny: { encoder: { tubeletSize: 1 } },
});
