// HF ViT-style encoders (families.md §5): DINOv2 (with or without registers, SwiGLU in giant, layer scale), plain
// ViT, the LeJEPA and LeWM encoders: CLS and a learned table over CLS + patches.
import { defineFamily } from './define.js';

export const hfvit = defineFamily({
  name: 'hfvit',
  traits: { pos: 'learned' },
  tensors: ['cls_token', 'reg_tokens', 'layer_scale', 'swiglu_ffn', 'qkv_bias_optional'],
});
