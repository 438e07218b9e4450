// The one encoder graph every family runs, chosen by metadata alone:
//   tokens = patch_embed(patches) [+ pos table] [+ modality vector], prefixed by CLS / registers;
//   L pre-LN blocks: x += proj(attn(ln1(x)))·ls1 ; x += fc2(act(fc1(ln2(x))))·ls2 (3-D or 2-D RoPE on q, k);
//   (the MLP may be SwiGLU, w3(silu(x1) ⊙ x2), and qkv may have no bias: jepa.enc.ffn_kind / qkv_bias);
//   x = final norm (none where jepa.enc.final_norm is false; V-JEPA 2.1: the last hierarchy norm; in hierarchy
//   mode every hierarchy norm of the block it follows, concatenated along channels: what the 2.1 g/G predictors read).
// `layers` keeps the first N blocks, then the final norm; `stages` keeps each stage as an output too.
import { typeByName, type Context, type Graph, type Tensor } from '@jepa/native';
import { POSITION_SCHEMES, positionPrefixRows, tensorNames, type EncoderHparams } from '@jepa/gguf';
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

  let x = embedPatches(ctx, e, w, patches, shape.image, o.precF32); // [D, np, batch]
  const scheme = POSITION_SCHEMES[e.pos];
  const { pos, posTable } = positionTable(ctx, e, w, np);
  if (pos) {
    const offset = positionPrefixRows(e) * pos.nb[1];
    x = ctx.add(x, ctx.view(pos, [D, np], [pos.nb[1], pos.nb[1] * np, pos.nb[1] * np], offset));
  }
  let keepRows: Tensor | null = null;
  if (shape.keep !== undefined) {
    if (prefix > 0 || batch !== 1)
      throw new GraphError('UNSUPPORTED', 'a context-only encoding takes one item of a model without CLS or register tokens');
    keepRows = graphInput(ctx, typeByName('i32'), [shape.keep], 'keep_rows');
    x = ctx.reshape(ctx.getRows(ctx.reshape(x, [D, np]), keepRows), [D, shape.keep, 1]);
  }
  if (prefix > 0) x = ctx.concat(prefixRows(ctx, e, w, pos, batch), x, 1); // [D, n, batch]

  const rope = scheme.rotary ? ropeInputs(ctx, e.headDim, n, '') : null;
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
  const output = hierLayers ? levels.reduce((a, b) => ctx.concat(a, b, 0)) : finalNorm(ctx, e, w, x);
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

/** The patch tokens: the video or (V-JEPA 2.1, one frame) image tokenizer, plus its modality vector where the encoder has them. */
function embedPatches(ctx: Context, e: EncoderHparams, w: Weights, patches: Tensor, image: boolean, precF32: boolean): Tensor {
  const x = linear(ctx, patches, w, image ? tensorNames.encPatchEmbedImg : tensorNames.encPatchEmbed, precF32);
  if (e.imgTubeletSize === null) return x;
  return ctx.add(x, w.get(image ? tensorNames.encImgModEmbed : tensorNames.encVideoModEmbed));
}

/**
 * The position table the tokens add (none where the scheme rotates q and k): the stored one, or an input the host
 * fills with it resized to this grid (see position-interpolation.ts) where the scheme and a one-frame model allow.
 */
function positionTable(ctx: Context, e: EncoderHparams, w: Weights, np: number): { pos: Tensor | null; posTable: Tensor | null } {
  const scheme = POSITION_SCHEMES[e.pos];
  if (!scheme.table) return { pos: null, posTable: null };
  const stored = w.get(tensorNames.encPosEmbed);
  const posRows = positionPrefixRows(e) + np;
  if (stored.ne[1] === posRows) return { pos: stored, posTable: null };
  if (!scheme.resizable || e.nFrames > 1)
    throw new GraphError(
      'UNSUPPORTED_INPUT_SIZE',
      `the position table covers the trained clip, ${e.nFrames} frames at ${e.imgSize}² (${stored.ne[1] - (posRows - np)} patch tokens); this input gives ${np}: give ${e.nFrames} frames at ${e.imgSize} px`,
    );
  const posTable = graphInput(ctx, GGML_F32, [e.embedDim, posRows], 'pos_table');
  return { pos: posTable, posTable };
}

/** CLS (plus its row of a learned table) then the registers, each broadcast over the batch: [D, prefix, batch]. */
function prefixRows(ctx: Context, e: EncoderHparams, w: Weights, pos: Tensor | null, batch: number): Tensor {
  const D = e.embedDim;
  const parts: Tensor[] = [];
  if (e.nCls > 0) {
    let cls = w.get(tensorNames.encClsToken);
    const rows = pos ? positionPrefixRows(e) : 0;
    if (pos && rows > 0) cls = ctx.add(cls, ctx.view(pos, [D, rows], [pos.nb[1], pos.nb[1] * rows, pos.nb[1] * rows], 0));
    parts.push(perItem(ctx, cls, e.nCls, batch));
  }
  if (e.nReg > 0) parts.push(perItem(ctx, w.get(tensorNames.encRegTokens), e.nReg, batch));
  let head = parts[0]!;
  for (const p of parts.slice(1)) head = ctx.concat(head, p, 1);
  return head;
}

/** enc.norm; V-JEPA 2.1's last hierarchy norm in its place; none where jepa.enc.final_norm is false (VideoMAE with mean pooling). */
function finalNorm(ctx: Context, e: EncoderHparams, w: Weights, x: Tensor): Tensor {
  if (e.hierLayers !== null) return layerNorm(ctx, x, w, tensorNames.encHierNorm(e.hierLayers.length - 1), e.lnEps);
  return e.finalNorm ? layerNorm(ctx, x, w, tensorNames.encNorm, e.lnEps) : ctx.cont(x);
}
