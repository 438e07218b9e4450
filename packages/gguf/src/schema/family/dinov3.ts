// DINOv3: an image ViT with CLS, registers and layer scale, 2-D RoPE on the patch tokens (base 100), and in
// the 7B model SwiGLU blocks without a qkv bias. q and k rows of each head are stored in pair order (the
// converter's permutation of the rotate-half layout: ropePairOrder).
import { defineFamily } from './define.js';

/** Every DINOv3 backbone's RoPE period base (pos_embed_rope_base, HF rope_theta). */
export const DINOV3_ROPE_BASE = 100;

export const dinov3 = defineFamily({
  name: 'dinov3',
  traits: {
    pos: 'rope2d',
    ropeLayout: 'interleaved',
    nCls: 1,
    registers: true,
    layerScale: true,
    swiglu: true,
    qkvBiasOptional: true,
    // dino.txt's vision head and text tower (jepa.text.*)
    text: true,
  },
  encoder: {
    rope: { layout: 'interleaved', theta: DINOV3_ROPE_BASE, interpolate: false, refGrid: null },
    layerScale: true,
  },
  tiny: { encoder: { lnEps: Math.fround(1e-5) } },
});
