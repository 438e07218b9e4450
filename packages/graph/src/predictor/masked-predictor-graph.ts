// The V-JEPA 2 / 2.1 masked predictor:
//   context rows -> [embed_in -> act ->] embed; one mask token per target id; concat;
//   (2.1) + modality vector on every token; reorder by token id; L pre-LN RoPE blocks with positions
//   decoded from the ids; norm; pick the target rows back out -> proj (and the context rows ->
//   proj_context). Sorting and picking are get_rows with host-computed orders.
// The I-JEPA / V-JEPA v1 predictor (pos 'table'): each context row and each mask token gets its id's
//   row of pred.pos_embed; no sorting (the reference concatenates context then targets) and no RoPE.
import { typeByName, type Context, type Graph, type Tensor } from '@jepa/native';
import { tensorNames, type MaskedPredictorHparams } from '@jepa/gguf';
import { GGML_F32 } from '../layers/attention.js';
import { graphContext } from '../layers/graph-budget.js';
import { graphInput, ropeInputs } from '../layers/graph-inputs.js';
import { layerNorm } from '../layers/layer-norm.js';
import { linear } from '../layers/linear.js';
import { vitBlock } from '../layers/vit-block.js';
import type { Weights } from '../weights.js';

export interface MaskedPredictorShape {
  nContext: number;
  nTarget: number;
  modality: 'video' | 'image';
  /** Also project the context rows with pred.proj_context (2.1 return_all_tokens). */
  withContext: boolean;
}

export interface MaskedPredictorGraphOptions {
  flash: boolean;
  kvType: number;
  precF32: boolean;
}

export interface MaskedPredictorGraph {
  ctx: Context;
  graph: Graph;
  /** [embed_in_dim, nContext]. */
  context: Tensor;
  /** I32 [nTarget]: the mask-token row each target takes. */
  maskRows: Tensor;
  /** I32 [nContext + nTarget]: concat index of each sorted position (rope3d only). */
  order: Tensor | null;
  /** I32 [nContext] and [nTarget]: the pred.pos_embed row of each context / target token (table only). */
  contextPos: Tensor | null;
  targetPos: Tensor | null;
  /** I32 [nTarget] (and [nContext]): sorted position of each target (context) row. */
  targetRows: Tensor;
  contextRows: Tensor | null;
  ropeCos: Tensor | null;
  ropeSin: Tensor | null;
  /** [outDim, nTarget] (and [outDim, nContext]). */
  targets: Tensor;
  contextOut: Tensor | null;
}

export function buildMaskedPredictorGraph(
  p: MaskedPredictorHparams,
  w: Weights,
  shape: MaskedPredictorShape,
  o: MaskedPredictorGraphOptions,
): MaskedPredictorGraph {
  const { nContext, nTarget } = shape;
  const n = nContext + nTarget;
  const Dp = p.embedDim;
  const i32 = typeByName('i32');
  const ctx = graphContext(p.nLayer, undefined, n);
  const input = (type: number, ne: number[], name: string) => graphInput(ctx, type, ne, name);
  const context = input(GGML_F32, [p.embedInDim, nContext], 'pred_context');
  const maskRows = input(i32, [nTarget], 'pred_mask_rows');
  const table = p.pos === 'table';
  const order = table ? null : input(i32, [n], 'pred_order');
  const contextPos = table ? input(i32, [nContext], 'pred_context_pos') : null;
  const targetPos = table ? input(i32, [nTarget], 'pred_target_pos') : null;
  const targetRows = input(i32, [nTarget], 'pred_target_rows');
  const contextRows = shape.withContext ? input(i32, [nContext], 'pred_context_rows') : null;
  const rope = table ? null : ropeInputs(ctx, p.headDim, n, 'pred_');

  let c: Tensor = context;
  if (p.embedMlp) c = linear(ctx, c, w, 'pred.embed_in', o.precF32, { act: p.act });
  c = linear(ctx, c, w, 'pred.embed', o.precF32); // [Dp, nContext]
  let masks = ctx.getRows(w.get('pred.mask_tokens'), maskRows); // [Dp, nTarget]
  if (contextPos && targetPos) {
    c = ctx.add(c, ctx.getRows(w.get('pred.pos_embed'), contextPos));
    masks = ctx.add(masks, ctx.getRows(w.get('pred.pos_embed'), targetPos));
  }
  let x = ctx.concat(c, masks, 1);
  if (p.modalityVectors) x = ctx.add(x, w.get(shape.modality === 'image' ? 'pred.img_mod_embed' : 'pred.video_mod_embed'));
  x = ctx.reshape(order ? ctx.getRows(x, order) : x, [Dp, n, 1]);

  for (let i = 0; i < p.nLayer; i++) {
    x = vitBlock(ctx, x, w, tensorNames.predBlock(i), {
      dim: Dp,
      nHead: p.nHead,
      lnEps: p.lnEps,
      act: p.act,
      rope,
      attn: { mask: null, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
      precF32: o.precF32,
    });
  }
  const xn = ctx.reshape(layerNorm(ctx, x, w, 'pred.norm', p.lnEps), [Dp, n]);
  const targets = linear(ctx, ctx.getRows(xn, targetRows), w, 'pred.proj', o.precF32);
  targets.name = 'pred_targets';
  targets.setOutput();
  const outputs = [targets];
  let contextOut: Tensor | null = null;
  if (contextRows) {
    contextOut = linear(ctx, ctx.getRows(xn, contextRows), w, 'pred.proj_context', o.precF32);
    contextOut.name = 'pred_context_out';
    contextOut.setOutput();
    outputs.push(contextOut);
  }
  return {
    ctx,
    graph: ctx.buildGraph(outputs),
    context,
    maskRows,
    order,
    contextPos,
    targetPos,
    targetRows,
    contextRows,
    ropeCos: rope?.cos ?? null,
    ropeSin: rope?.sin ?? null,
    targets,
    contextOut,
  };
}
