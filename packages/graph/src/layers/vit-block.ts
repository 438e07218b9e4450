// The pre-LN transformer block of the encoders, the attentive pooler's self-attention layers and the
// masked and action-conditioned predictors: x += proj(attn(ln1(x)))[·ls1]; x += ffn(ln2(x))[·ls2],
// fused qkv, optional 3-D RoPE on q and k, the FFN an MLP or SwiGLU.
import type { Activation, FfnKind } from '@jepa/gguf';
import type { Context, Tensor } from '@jepa/native';
import type { Weights } from '../weights.js';
import { attention, type AttentionOptions } from './attention.js';
import { blockFfn } from './ffn.js';
import { headsMajor, packedPart } from './head-split.js';
import { layerNorm } from './layer-norm.js';
import { linear } from './linear.js';
import { applyRope } from './rope-apply.js';

export interface VitBlockOptions {
  dim: number;
  nHead: number;
  lnEps: number;
  act: Activation;
  /** The MLP's form (default 'mlp'; the encoder's may be 'swiglu'). */
  ffn?: FfnKind;
  /** Scale each branch by the block's ls1 / ls2 before its residual add (DINOv2's layer scale). */
  layerScale?: boolean;
  /** Host-built tables [headDim, 1, tokens] (cos, signed sin), or null for no rotation. */
  rope: { cos: Tensor; sin: Tensor } | null;
  attn: Omit<AttentionOptions, 'scale' | 'cpu'>;
  precF32: boolean;
}

/** x: [dim, tokens, batch]. */
export function vitBlock(ctx: Context, x: Tensor, w: Weights, prefix: string, o: VitBlockOptions): Tensor {
  const [, tokens, batch] = x.ne;
  const headDim = o.dim / o.nHead;
  const layout = { headDim, nHead: o.nHead, tokens, batch };
  const h = layerNorm(ctx, x, w, `${prefix}.ln1`, o.lnEps);
  const qkv = linear(ctx, h, w, `${prefix}.attn.qkv`, o.precF32); // [3 dim, tokens, batch]
  let q = packedPart(ctx, qkv, 0, layout);
  let k = packedPart(ctx, qkv, 1, layout);
  if (o.rope) {
    q = applyRope(ctx, q, o.rope.cos, o.rope.sin, w.onCpu);
    k = applyRope(ctx, k, o.rope.cos, o.rope.sin, w.onCpu);
  }
  const heads = (t: Tensor) => headsMajor(ctx, t);
  const a = attention(ctx, heads(q), heads(k), heads(packedPart(ctx, qkv, 2, layout)), {
    ...o.attn,
    scale: 1 / Math.sqrt(headDim),
    cpu: w.onCpu,
    cpuFlash: w.flashCpu,
  });
  const scale = (name: string) => (o.layerScale ? w.get(`${prefix}.${name}`) : null);
  x = linear(ctx, a, w, `${prefix}.attn.proj`, o.precF32, { scale: scale('ls1'), residual: x });
  const m = layerNorm(ctx, x, w, `${prefix}.ln2`, o.lnEps);
  return blockFfn(ctx, m, w, prefix, o.ffn ?? 'mlp', o.act, o.precF32, { scale: scale('ls2'), residual: x });
}
