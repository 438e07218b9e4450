// The pre-LN transformer block shared by the attentive pooler's self-attention layers and the
// masked predictors: x += proj(attn(ln1(x))); x += fc2(act(fc1(ln2(x)))), fused qkv with bias,
// optional 3-D RoPE on q and k.
import type { Activation } from '@jepa/gguf';
import type { Context, Tensor } from '@jepa/native';
import { attention, type AttentionOptions } from '../attention.js';
import { layerNorm, linear } from '../encoder-graph.js';
import { applyRope } from '../rope-apply.js';
import type { Weights } from '../weights.js';

export interface VitBlockOptions {
  dim: number;
  nHead: number;
  lnEps: number;
  act: Activation;
  /** Host-built tables [headDim, 1, tokens] (cos, signed sin), or null for no rotation. */
  rope: { cos: Tensor; sin: Tensor } | null;
  attn: Omit<AttentionOptions, 'scale'>;
  precF32: boolean;
}

/** x: [dim, tokens, batch]. */
export function vitBlock(ctx: Context, x: Tensor, w: Weights, prefix: string, o: VitBlockOptions): Tensor {
  const [, n, batch] = x.ne;
  const hd = o.dim / o.nHead;
  const h = layerNorm(ctx, x, w, `${prefix}.ln1`, o.lnEps);
  const qkv = linear(ctx, h, w, `${prefix}.attn.qkv`, o.precF32);
  const split = (which: number) => ctx.view(qkv, [hd, o.nHead, n, batch], [hd * 4, qkv.nb[1], qkv.nb[2]], which * o.dim * 4);
  let q = split(0);
  let k = split(1);
  if (o.rope) {
    q = applyRope(ctx, q, o.rope.cos, o.rope.sin, w.onCpu);
    k = applyRope(ctx, k, o.rope.cos, o.rope.sin, w.onCpu);
  }
  const heads = (t: Tensor) => ctx.permute(t, 0, 2, 1, 3);
  const a = attention(ctx, heads(q), heads(k), heads(split(2)), { ...o.attn, scale: 1 / Math.sqrt(hd), cpu: w.onCpu });
  x = linear(ctx, a, w, `${prefix}.attn.proj`, o.precF32, { residual: x });
  const m = layerNorm(ctx, x, w, `${prefix}.ln2`, o.lnEps);
  const hidden = linear(ctx, m, w, `${prefix}.ffn.fc1`, o.precF32, { act: o.act });
  return linear(ctx, hidden, w, `${prefix}.ffn.fc2`, o.precF32, { residual: x });
}
