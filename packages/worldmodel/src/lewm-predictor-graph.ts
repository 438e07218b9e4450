// LeWM's action-conditioned predictor over K candidates of T history steps in one graph:
//   c = action_encoder(actions) = fc2(act(fc1(embed(a))))             (embed: the Conv1d k=1)
//   x = emb + pos_embed[:T]
//   per block (AdaLN-zero): shift/scale/gate x2 = adaln(silu(c));
//     x += gate_a * attn(modulate(LN0(x), shift_a, scale_a))   attn = attn_norm -> qkv (no bias) -> causal SDPA -> proj
//     x += gate_m * ffn(modulate(LN0(x), shift_m, scale_m))    ffn  = ffn_norm -> fc1 -> act -> fc2
//   LN0 is non-affine (adaln_eps); then pred.norm and pred_proj (fc1 -> proj_act -> fc2, BatchNorm folded).
import type { Context, Graph, Tensor } from '@jepa/native';
import { tensorNames, type ActionPredictorHparams } from '@jepa/gguf';
import {
  ADALN_BLOCK_TENSORS,
  GGML_F32,
  attention,
  graphContext,
  graphInput,
  headsMajor,
  layerNorm,
  linear,
  maskInput,
  mlp,
  packedPart,
  type Weights,
} from '@jepa/graph';

export interface LewmPredictorGraphOptions {
  flash: boolean;
  precF32: boolean;
  /** The reference is causal over time; false only for negative controls. */
  causal: boolean;
}

export interface LewmPredictorGraph {
  ctx: Context;
  graph: Graph;
  /** [Dp, T, K] state embeddings and [actionDim, T, K] (normalised) actions. */
  embs: Tensor;
  actions: Tensor;
  /** F16 [T, T] additive causal mask, or null. */
  mask: Tensor | null;
  /** [Dp, T·K] (the bytes of [Dp, T, K]): row t of a candidate predicts the embedding of step t + 1. */
  output: Tensor;
}

export function buildLewmPredictorGraph(
  p: ActionPredictorHparams,
  w: Weights,
  steps: number,
  candidates: number,
  o: LewmPredictorGraphOptions,
): LewmPredictorGraph {
  const Dp = p.embedDim;
  const hd = p.headDim;
  const H = p.nHead;
  const inner = H * hd;
  const T = steps;
  const K = candidates;
  const ctx = graphContext(p.nLayer, ADALN_BLOCK_TENSORS);
  const embs = graphInput(ctx, GGML_F32, [Dp, T, K], 'lewm_embs');
  const actions = graphInput(ctx, GGML_F32, [p.actionDim, T, K], 'lewm_actions');
  const mask = o.causal ? maskInput(ctx, T, T, 'lewm_causal_mask') : null;

  // every Linear runs on [width, T·K] rows: one matmul per layer rather than one per candidate
  const rows = T * K;
  const a = linear(ctx, ctx.reshape(actions, [p.actionDim, rows]), w, 'pred.action.embed', o.precF32);
  const c = mlp(ctx, a, w, 'pred.action', p.actionAct, o.precF32);
  const cAct = ctx.silu(c);

  const pos = w.get('pred.pos_embed');
  let x = ctx.reshape(ctx.add(embs, ctx.view(pos, [Dp, T, 1], [pos.nb[1], pos.nb[1] * T, pos.nb[1] * T], 0)), [Dp, rows]);

  const modulate = (h: Tensor, shift: Tensor, scale: Tensor) => ctx.add(ctx.add(h, ctx.mul(h, scale)), shift);
  for (let l = 0; l < p.nLayer; l++) {
    const blk = tensorNames.predBlock(l);
    const mod = linear(ctx, cAct, w, `${blk}.adaln`, o.precF32); // [6 Dp, T·K]
    const chunk = (j: number) => ctx.view(mod, [Dp, rows], [mod.nb[1], mod.nb[1] * rows, mod.nb[1] * rows], j * Dp * 4);

    const ha = layerNorm(ctx, modulate(ctx.norm(x, p.adalnEps), chunk(0), chunk(1)), w, `${blk}.attn_norm`, p.lnEps);
    const qkv = linear(ctx, ha, w, `${blk}.attn.qkv`, o.precF32); // [3 inner, T·K]
    const split = (which: number) => headsMajor(ctx, packedPart(ctx, qkv, which, { headDim: hd, nHead: H, tokens: T, batch: K }));
    // short sequences: F32 K/V, as for every one-row-per-query attention here
    const att = attention(ctx, split(0), split(1), split(2), {
      scale: 1 / Math.sqrt(hd),
      mask,
      flash: o.flash,
      kvType: GGML_F32,
      precF32: o.precF32,
      cpu: w.onCpu,
      cpuFlash: w.flashCpu,
    });
    x = ctx.add(x, ctx.mul(linear(ctx, ctx.reshape(att, [inner, rows]), w, `${blk}.attn.proj`, o.precF32), chunk(2)));

    const hm = layerNorm(ctx, modulate(ctx.norm(x, p.adalnEps), chunk(3), chunk(4)), w, `${blk}.ffn_norm`, p.lnEps);
    const f = mlp(ctx, hm, w, `${blk}.ffn`, p.act, o.precF32);
    x = ctx.add(x, ctx.mul(f, chunk(5)));
  }
  const xn = layerNorm(ctx, x, w, 'pred.norm', p.lnEps);
  const output = mlp(ctx, xn, w, 'pred.out_proj', p.projAct, o.precF32);
  output.name = 'lewm_pred'; // [Dp, T·K]: the same bytes as [Dp, T, K]
  output.setOutput();
  return { ctx, graph: ctx.buildGraph([output]), embs, actions, mask, output };
}
