// dino.txt's vision head over the encoder's normed tokens [CLS, registers, patches] (dinov3 eval/text/vision_tower.py):
//   x = align blocks (pre-LN, full attention over every token, no RoPE, SwiGLU, layer scale, qkv without bias);
//   x = align.norm(x); aligned = concat(x[CLS], mean of x over the patch rows, registers excluded): [2·D].
import { tensorNames, type EncoderHparams, type TextHparams } from '@jepa/gguf';
import type { Context, Graph, Tensor } from '@jepa/native';
import { GGML_F32 } from '../layers/attention.js';
import { graphContext } from '../layers/graph-budget.js';
import { graphInput } from '../layers/graph-inputs.js';
import { layerNorm } from '../layers/layer-norm.js';
import { vitBlock } from '../layers/vit-block.js';
import type { Weights } from '../weights.js';

export interface AlignGraph {
  ctx: Context;
  graph: Graph;
  /** [D, tokens, batch]: the encoder output of `batch` items, prefix first. */
  tokens: Tensor;
  /** [2·D, 1, batch]. */
  aligned: Tensor;
}

export interface AlignGraphOptions {
  flash: boolean;
  kvType: number;
  precF32: boolean;
}

export function buildAlignGraph(e: EncoderHparams, t: TextHparams, w: Weights, nTokens: number, batch: number, o: AlignGraphOptions): AlignGraph {
  const D = e.embedDim;
  const prefix = e.nCls + e.nReg;
  const ctx = graphContext(t.visionNLayer, undefined, nTokens);
  const tokens = graphInput(ctx, GGML_F32, [D, nTokens, batch], 'align_tokens');
  const block = {
    dim: D,
    nHead: e.nHead,
    lnEps: t.visionLnEps,
    act: 'silu' as const,
    ffn: 'swiglu' as const,
    layerScale: true,
    rope: null,
    attn: { mask: null, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
    precF32: o.precF32,
  };
  let x = tokens;
  for (let i = 0; i < t.visionNLayer; i++) x = vitBlock(ctx, x, w, tensorNames.alignBlock(i), block);
  x = layerNorm(ctx, x, w, tensorNames.alignNorm, t.visionLnEps); // [D, n, batch]
  const cls = ctx.view(x, [D, 1, batch], [x.nb[1], x.nb[2], x.nb[3]], 0);
  const patches = ctx.view(x, [D, nTokens - prefix, batch], [x.nb[1], x.nb[2], x.nb[3]], prefix * x.nb[1]);
  // ggml_mean reduces ne[0]: the patch rows go there first
  const mean = ctx.mean(ctx.cont(ctx.permute(patches, 1, 0, 2, 3))); // [1, D, batch]
  const aligned = ctx.concat(ctx.cont(cls), ctx.reshape(mean, [D, 1, batch]), 0);
  aligned.name = 'aligned';
  aligned.setOutput();
  return { ctx, graph: ctx.buildGraph([aligned]), tokens, aligned };
}
