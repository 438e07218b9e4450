// The linear classifier over encoder tokens (VideoMAE, ViViT): one pooled token, then a Linear:
//   pool mean:  logits = cls(fc_norm(mean of all tokens))   (VideoMAE use_mean_pooling)
//   pool first: logits = cls(token 0)                        (ViViT's CLS, after the encoder's final norm)
import type { Context, Graph, Tensor } from '@jepa/native';
import type { EncoderHparams, LinearHeadHparams } from '@jepa/gguf';
import { GGML_F32 } from '../layers/attention.js';
import { graphContext } from '../layers/graph-budget.js';
import { graphInput } from '../layers/graph-inputs.js';
import { layerNorm } from '../layers/layer-norm.js';
import { linear } from '../layers/linear.js';
import type { Weights } from '../weights.js';

export interface LinearHeadGraph {
  ctx: Context;
  graph: Graph;
  /** [D, tokens] input: every token of the item, prefix included. */
  tokens: Tensor;
  /** [D] the vector the classifier reads (the pooler output). */
  pooled: Tensor;
  /** [nClasses] logits. */
  logits: Tensor;
}

export function buildLinearHeadGraph(e: EncoderHparams, h: LinearHeadHparams, w: Weights, nTokens: number, precF32: boolean): LinearHeadGraph {
  const D = e.embedDim;
  const ctx = graphContext(0);
  const tokens = graphInput(ctx, GGML_F32, [D, nTokens, 1], 'head_tokens');
  let pooled: Tensor;
  if (h.pool === 'mean') {
    // ggml_mean reduces ne[0]: tokens along ne[0] first
    const mean = ctx.mean(ctx.cont(ctx.transpose(ctx.reshape(tokens, [D, nTokens])))); // [1, D]
    pooled = layerNorm(ctx, ctx.reshape(mean, [D, 1, 1]), w, 'head.fc_norm', h.lnEps!);
  } else {
    pooled = ctx.view(tokens, [D, 1, 1], [tokens.nb[1], tokens.nb[1], tokens.nb[1]], 0);
  }
  pooled = ctx.cont(pooled);
  pooled.name = 'pooled';
  pooled.setOutput();
  const logits = linear(ctx, pooled, w, 'head.cls', precF32);
  logits.name = 'logits';
  logits.setOutput();
  return { ctx, graph: ctx.buildGraph([logits]), tokens, pooled, logits };
}
