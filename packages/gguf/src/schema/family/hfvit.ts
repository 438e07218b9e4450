// HF ViT-style encoders (families.md §5): DINOv2 (with or without registers, SwiGLU in giant, layer scale), plain
// ViT, the LeJEPA and LeWM encoders: CLS and a learned table over CLS + patches.
import { defineFamily } from './define.js';

export const hfvit = defineFamily({
  name: 'hfvit',
  traits: { pos: 'learned', nCls: 1, registers: true, layerScale: true, swiglu: true, qkvBiasOptional: true },
});
