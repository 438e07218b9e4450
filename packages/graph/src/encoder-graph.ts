// The one encoder graph every family runs, chosen by metadata alone:
//   tokens = patch_embed(patches) [+ pos table] [+ modality vector], prefixed by CLS / registers;
//   L pre-LN blocks: x += proj(attn(ln1(x)))·ls1 ; x += fc2(act(fc1(ln2(x))))·ls2 (3-D or 2-D RoPE on q, k);
//   (the MLP may be SwiGLU, w3(silu(x1) ⊙ x2), and qkv may have no bias: jepa.enc.ffn_kind / qkv_bias);
//   x = final norm (none where jepa.enc.final_norm is false; V-JEPA 2.1: the last hierarchy norm; in hierarchy
//   mode every hierarchy norm of the block it follows, concatenated along channels: what the 2.1 g/G predictors read).
// `layers` keeps the first N blocks, then the final norm; `stages` keeps each stage as an output too.
import { typeByName, type Context, type Graph, type Tensor } from '@jepa/native';
import { tensorNames, type EncoderHparams } from '@jepa/gguf';
import { GraphError } from './errors.js';
import { blockStageName, stageOutput } from './encoder-stages.js';
import { GGML_F32 } from './layers/attention.js';
import { BLOCK_TENSORS, graphContext } from './layers/graph-budget.js';
import { graphInput, maskInput, ropeInputs } from './layers/graph-inputs.js';
import { layerNorm } from './layers/layer-norm.js';
import { linear } from './layers/linear.js';
import { vitBlock } from './layers/vit-block.js';
import type { Weights } from './weights.js';

export interface EncoderGraphShape {
  batch: number;
  /** Patch tokens per item and the length of one patch row (C · tubelet · P · P). */
  patches: number;
  patchLen: number;
  /** Whether the item is a one-frame clip on V-JEPA 2.1's image tokenizer. */
  image: boolean;
  /**
   * Keep only this many tokens (rows keepRows) after the position add, as Meta's context encoder does
   * (encoder(x, masks): apply_masks before the blocks). One item of a model without prefix tokens.
   */
  keep?: number;
}

export interface EncoderGraphOptions {
  flash: boolean;
  kvType: number;
  blockCausal: boolean;
  /** F32 accumulation on every mul_mat (the GPU default; a no-op on the CPU). */
  precF32: boolean;
  /** V-JEPA 2.1: output [n_hier·D, tokens, batch], hier_norm.k(x after block hier_layers[k]) for each k. */
  hierarchy?: boolean;
  /** Run only the first this many blocks, then the final norm (default all: jepa.enc.n_layer). */
  layers?: number;
  /** Keep the tokens the first block reads and each block's output as outputs too (`stages`). */
  stages?: boolean;
}

export interface EncoderGraph {
  ctx: Context;
  graph: Graph;
  /** Inputs to set before each run. */
  patches: Tensor;
  /** The position table resized to this input's grid, when it differs from the trained one. */
  posTable: Tensor | null;
  ropeCos: Tensor | null;
  ropeSin: Tensor | null;
  mask: Tensor | null;
  /** I32 [keep]: the patch ids kept (shape.keep only). */
  keepRows: Tensor | null;
  /** [D, tokens, batch] ([n_hier·D, tokens, batch] in hierarchy mode). */
  output: Tensor;
  /** With options.stages: the first block's input, each block's output, then `output` (the final norm). */
  stages: { name: string; tensor: Tensor }[];
  tokens: number;
  prefix: number;
}

export function prefixTokens(e: EncoderHparams): number {
  return e.nCls + e.nReg;
}

/** Broadcasts a [D, n] table over the batch: [D, n, batch]. */
function perItem(ctx: Context, t: Tensor, n: number, batch: number): Tensor {
  const rows = ctx.reshape(t, [t.ne[0], n, 1]);
  if (batch === 1) return rows;
  // repeat takes only the shape of its second operand, which never enters the graph
  return ctx.repeat(rows, ctx.newTensor(GGML_F32, [t.ne[0], n, batch]));
}

export function buildEncoderGraph(e: EncoderHparams, w: Weights, shape: EncoderGraphShape, o: EncoderGraphOptions): EncoderGraph {
  const D = e.embedDim;
  const { batch, patches: np } = shape;
  const prefix = prefixTokens(e);
  const n = prefix + (shape.keep ?? np);
  const nLayer = o.layers ?? e.nLayer;
  if (!Number.isInteger(nLayer) || nLayer < 1 || nLayer > e.nLayer)
    throw new GraphError('BAD_OPTION', `layers ${nLayer} is outside this encoder's 1..${e.nLayer} blocks`);
  if (o.hierarchy && nLayer < e.nLayer) throw new GraphError('UNSUPPORTED', 'hierarchy output reads blocks past a truncation; keep every block');
  const ctx = graphContext(nLayer, o.stages ? BLOCK_TENSORS + 1 : BLOCK_TENSORS, n);
  const patches = graphInput(ctx, GGML_F32, [shape.patchLen, np, batch], 'patches');

  const embedName = shape.image ? tensorNames.encPatchEmbedImg : tensorNames.encPatchEmbed;
  let x = linear(ctx, patches, w, embedName, o.precF32); // [D, np, batch]
  if (e.imgTubeletSize !== null) x = ctx.add(x, w.get(shape.image ? tensorNames.encImgModEmbed : tensorNames.encVideoModEmbed));

  const posRows = (e.pos === 'learned' ? e.nCls : 0) + np;
  const rotary = e.pos === 'rope3d' || e.pos === 'rope2d';
  let pos = rotary ? null : w.get(tensorNames.encPosEmbed);
  let posTable: Tensor | null = null;
  if (pos && pos.ne[1] !== posRows) {
    // a table over clips (3-D, VideoMAE's 1-D, ViViT's learned one) is used at the trained clip only, as HF does
    if (e.pos === 'sincos3d' || e.pos === 'sincos1d' || e.nFrames > 1)
      throw new GraphError(
        'UNSUPPORTED_INPUT_SIZE',
        `the position table covers the trained clip, ${e.nFrames} frames at ${e.imgSize}² (${pos.ne[1] - (posRows - np)} patch tokens); this input gives ${np}: give ${e.nFrames} frames at ${e.imgSize} px`,
      );
    // another image size: the table is resized on the host (see position-interpolation.ts)
    posTable = graphInput(ctx, GGML_F32, [D, posRows], 'pos_table');
    pos = posTable;
  }
  if (pos) {
    const offset = e.pos === 'learned' ? e.nCls * pos.nb[1] : 0;
    x = ctx.add(x, ctx.view(pos, [D, np], [pos.nb[1], pos.nb[1] * np, pos.nb[1] * np], offset));
  }
  let keepRows: Tensor | null = null;
  if (shape.keep !== undefined) {
    if (prefix > 0 || batch !== 1)
      throw new GraphError('UNSUPPORTED', 'a context-only encoding takes one item of a model without CLS or register tokens');
    keepRows = graphInput(ctx, typeByName('i32'), [shape.keep], 'keep_rows');
    x = ctx.reshape(ctx.getRows(ctx.reshape(x, [D, np]), keepRows), [D, shape.keep, 1]);
  }
  if (prefix > 0) {
    const parts: Tensor[] = [];
    if (e.nCls > 0) {
      let cls = w.get(tensorNames.encClsToken);
      if (pos && e.pos === 'learned') cls = ctx.add(cls, ctx.view(pos, [D, e.nCls], [pos.nb[1], pos.nb[1] * e.nCls, pos.nb[1] * e.nCls], 0));
      parts.push(perItem(ctx, cls, e.nCls, batch));
    }
    if (e.nReg > 0) parts.push(perItem(ctx, w.get(tensorNames.encRegTokens), e.nReg, batch));
    let head = parts[0]!;
    for (const p of parts.slice(1)) head = ctx.concat(head, p, 1);
    x = ctx.concat(head, x, 1); // [D, n, batch]
  }

  const rope = rotary ? ropeInputs(ctx, e.headDim, n, '') : null;
  const mask = o.blockCausal ? maskInput(ctx, n, n, 'block_causal_mask') : null;

  const hierLayers = o.hierarchy ? e.hierLayers : null;
  if (o.hierarchy && hierLayers === null) throw new GraphError('UNSUPPORTED', 'this encoder has no hierarchy norms (jepa.enc.hier_layers)');
  const levels: Tensor[] = [];
  const stages: { name: string; tensor: Tensor }[] = [];
  const keepStage = (t: Tensor, name: string) => {
    if (o.stages) stages.push({ name, tensor: stageOutput(ctx, t, name) });
  };
  keepStage(x, 'patch-embed');
  const block = {
    dim: D,
    nHead: e.nHead,
    lnEps: e.lnEps,
    act: e.act,
    ffn: e.ffnKind,
    layerScale: e.layerScale,
    rope,
    attn: { mask, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
    precF32: o.precF32,
  };
  for (let l = 0; l < nLayer; l++) {
    x = vitBlock(ctx, x, w, tensorNames.encBlock(l), block);
    keepStage(x, blockStageName(l, e.nLayer));
    const level = hierLayers ? hierLayers.indexOf(l) : -1;
    if (level >= 0) levels.push(layerNorm(ctx, x, w, tensorNames.encHierNorm(level), e.lnEps));
  }
  const finalNorm = e.hierLayers !== null ? tensorNames.encHierNorm(e.hierLayers.length - 1) : tensorNames.encNorm;
  // VideoMAE with mean pooling has no final norm: its tokens are the last block's output
  const output = hierLayers
    ? levels.reduce((a, b) => ctx.concat(a, b, 0))
    : e.finalNorm || e.hierLayers !== null
      ? layerNorm(ctx, x, w, finalNorm, e.lnEps)
      : ctx.cont(x);
  output.name = 'tokens';
  output.setOutput();
  if (o.stages) stages.push({ name: 'final-norm', tensor: output });
  return {
    ctx,
    graph: ctx.buildGraph(o.stages ? stages.map((s) => s.tensor) : [output]),
    patches,
    posTable,
    ropeCos: rope?.cos ?? null,
    ropeSin: rope?.sin ?? null,
    mask,
    keepRows,
    output,
    stages,
    tokens: n,
    prefix,
  };
}
