// The attentive classifier over encoder tokens (V-JEPA 2 pooler, V-JEPA v1 probe):
//   depth self-attention blocks (no RoPE) over the tokens;
//   one learned query cross-attends LN1(tokens): o = softmax(q_proj(query) k^T / sqrt(hd)) v, with
//   no output projection; y = query + o; y += MLP(LN2(y)); logits = cls(y).
import type { Context, Graph, Tensor } from '@jepa/native';
import { tensorNames, type AttentiveHeadHparams, type EncoderHparams } from '@jepa/gguf';
import { attention, GGML_F32 } from '../layers/attention.js';
import { mlp } from '../layers/ffn.js';
import { graphContext } from '../layers/graph-budget.js';
import { graphInput } from '../layers/graph-inputs.js';
import { headsMajor, packedPart } from '../layers/head-split.js';
import { layerNorm } from '../layers/layer-norm.js';
import { linear } from '../layers/linear.js';
import { vitBlock } from '../layers/vit-block.js';
import type { Weights } from '../weights.js';

export interface AttentiveHeadGraph {
  ctx: Context;
  graph: Graph;
  /** [D, tokens] input. */
  tokens: Tensor;
  /** [D] the vector the classifier reads (the pooler output). */
  pooled: Tensor;
  /** [nClasses] logits. */
  logits: Tensor;
}

export interface AttentiveHeadGraphOptions {
  flash: boolean;
  /** K/V type of the self-attention blocks; the cross-attention always keeps F32 K/V. */
  kvType: number;
  /** Flash attention for the one-row cross-attention: CPU only (CUDA's kernel forces F16 K/V). */
  crossFlash: boolean;
  precF32: boolean;
}

export function buildAttentiveHeadGraph(
  e: EncoderHparams,
  h: AttentiveHeadHparams,
  w: Weights,
  nTokens: number,
  o: AttentiveHeadGraphOptions,
): AttentiveHeadGraph {
  const D = e.embedDim;
  const ctx = graphContext(h.depth);
  const tokens = graphInput(ctx, GGML_F32, [D, nTokens, 1], 'head_tokens');

  let x: Tensor = tokens;
  for (let i = 0; i < h.depth; i++) {
    x = vitBlock(ctx, x, w, tensorNames.headBlock(i), {
      dim: D,
      nHead: h.nHead,
      lnEps: h.lnEps,
      act: h.act,
      rope: null,
      attn: { mask: null, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
      precF32: o.precF32,
    });
  }

  const hd = h.headDim;
  const query = ctx.reshape(w.get('head.query'), [D, 1, 1]);
  const q = ctx.reshape(linear(ctx, query, w, 'head.xattn.q', o.precF32), [hd, h.nHead, 1, 1]);
  const kv = linear(ctx, layerNorm(ctx, x, w, 'head.xattn.ln1', h.lnEps), w, 'head.xattn.kv', o.precF32); // [2D, n, 1]
  const split = (which: number) => packedPart(ctx, kv, which, { headDim: hd, nHead: h.nHead, tokens: nTokens, batch: 1 });
  const heads = (t: Tensor) => headsMajor(ctx, t);
  // one query row: ggml's per-row kernel would round q and the accumulator to F16 with F16 K/V
  const o1 = attention(ctx, heads(q), heads(split(0)), heads(split(1)), {
    scale: 1 / Math.sqrt(hd),
    mask: null,
    flash: o.crossFlash,
    kvType: GGML_F32,
    precF32: o.precF32,
    cpu: w.onCpu,
    cpuFlash: w.flashCpu,
  });
  let y = ctx.add(query, o1);
  const m = layerNorm(ctx, y, w, 'head.xattn.ln2', h.lnEps);
  y = mlp(ctx, m, w, 'head.xattn.ffn', h.act, o.precF32, { residual: y });
  y.name = 'pooled';
  y.setOutput();
  const logits = linear(ctx, y, w, 'head.cls', o.precF32);
  logits.name = 'logits';
  logits.setOutput();
  return { ctx, graph: ctx.buildGraph([logits]), tokens, pooled: y, logits };
}
