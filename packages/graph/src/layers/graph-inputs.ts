// The tensors a graph reads from the host before each run: declared, named (the name shows in
// refusals and profiles) and marked as inputs.
import type { Context, Tensor } from '@jepa/native';
import { GGML_F16, GGML_F32 } from './attention.js';

export function graphInput(ctx: Context, type: number, ne: number[], name: string): Tensor {
  const t = ctx.newTensor(type, ne);
  t.name = name;
  t.setInput();
  return t;
}

/** Host-built 3-D RoPE tables of `tokens` tokens, [headDim, 1, tokens] F32 each: `${prefix}rope_cos`, `${prefix}rope_sin`. */
export function ropeInputs(ctx: Context, headDim: number, tokens: number, prefix: string): { cos: Tensor; sin: Tensor } {
  return {
    cos: graphInput(ctx, GGML_F32, [headDim, 1, tokens], `${prefix}rope_cos`),
    sin: graphInput(ctx, GGML_F32, [headDim, 1, tokens], `${prefix}rope_sin`),
  };
}

/** An additive F16 [keys, queries] attention mask (0 or -inf), as flash_attn_ext and soft_max_ext take it. */
export function maskInput(ctx: Context, keys: number, queries: number, name: string): Tensor {
  return graphInput(ctx, GGML_F16, [keys, queries], name);
}
