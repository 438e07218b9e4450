// The one encoder graph every family runs, chosen by metadata alone:
//   tokens = patch_embed(patches) [+ pos table] [+ modality vector], prefixed by CLS / registers;
//   L pre-LN blocks: x += proj(attn(ln1(x)))·ls1 ; x += fc2(act(fc1(ln2(x))))·ls2 (RoPE on q, k);
//   (the MLP may be SwiGLU, w3(silu(x1) ⊙ x2), and qkv may have no bias: jepa.enc.ffn_kind / qkv_bias);
//   x = final norm (V-JEPA 2.1: the last hierarchy norm; in hierarchy mode every hierarchy norm of the
//   block it follows, concatenated along channels: what the 2.1 g/G predictors read).
import { createContext, typeByName, type Context, type Graph, type Tensor } from '@jepa/native';
import { GgmlType, tensorNames, type Activation, type EncoderHparams } from '@jepa/gguf';
import { attention, GGML_F16, GGML_F32 } from './attention.js';
import { GraphError } from './errors.js';
import { applyRope } from './rope-apply.js';
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
  tokens: number;
  prefix: number;
}

export function prefixTokens(e: EncoderHparams): number {
  return e.nCls + e.nReg;
}

/** onCpu: the graph runs on the CPU backend, where GELU(erf) has a vectorised node. */
export function activation(ctx: Context, x: Tensor, act: Activation, onCpu: boolean): Tensor {
  switch (act) {
    case 'gelu':
      return onCpu ? ctx.geluErfCpu(x) : ctx.geluErf(x);
    case 'gelu_tanh':
      return ctx.gelu(x);
    case 'silu':
      return ctx.silu(x);
    default:
      throw new GraphError(`activation '${act}' is not supported by this engine`, 'UNSUPPORTED');
  }
}

export function layerNorm(ctx: Context, x: Tensor, w: Weights, prefix: string, eps: number): Tensor {
  const [weight, bias] = [w.get(`${prefix}.weight`), w.get(`${prefix}.bias`)];
  if (w.onCpu && x.isContiguous) return ctx.layerNormCpu(x, weight, bias, eps);
  return ctx.add(ctx.mul(ctx.norm(x, eps), weight), bias);
}

/** What follows a linear layer: an activation, a layer scale, a residual (added last: residual + y). */
export interface LinearThen {
  act?: Activation;
  scale?: Tensor | null;
  residual?: Tensor | null;
}

export function linear(ctx: Context, input: Tensor, w: Weights, prefix: string, precF32 = false, then: LinearThen = {}): Tensor {
  const weight = w.get(`${prefix}.weight`);
  const panel = w.panel(`${prefix}.weight`);
  // A q8_row (I8) matrix has no ggml product: its panel is the only way, so x is made contiguous for it.
  const x = panel && !input.isContiguous && weight.type === GgmlType.I8 ? ctx.cont(input) : input;
  const bias = w.has(`${prefix}.bias`) ? w.get(`${prefix}.bias`) : null;
  let y: Tensor;
  // The panel kernels want contiguous activations (a strided view keeps ggml's own) and finish their
  // outputs themselves: bias, GELU(erf), layer scale, residual, in the order of the nodes they replace.
  if (panel && x.isContiguous) {
    const kernel = weight.type === GGML_F32 || weight.type === GGML_F16 ? undefined : weight.type === GgmlType.I8 ? w.rowsKernel : w.panelKernel;
    const fusable = (then.act === undefined || then.act === 'gelu') && (!then.residual || then.residual.isContiguous);
    if (fusable)
      return ctx.panelMulMat(panel, x, weight.ne[1], weight.type, kernel, { bias, gelu: then.act === 'gelu', scale: then.scale, add: then.residual });
    y = ctx.panelMulMat(panel, x, weight.ne[1], weight.type, kernel, { bias });
  } else {
    y = ctx.mulMat(weight, x);
    if (precF32) y.setPrecF32();
    if (bias) y = ctx.add(y, bias);
  }
  if (then.act) y = activation(ctx, y, then.act, w.onCpu);
  if (then.scale) y = ctx.mul(y, then.scale);
  return then.residual ? ctx.add(then.residual, y) : y;
}

/**
 * An encoder block's MLP on ln2's output m: fc2(act(fc1 m)), or the SwiGLU w3(silu(x1) ⊙ x2) with
 * [x1; x2] = w12 m along channels (transformers' chunk(2) order). `then` finishes the last linear.
 */
export function encoderFfn(
  ctx: Context,
  m: Tensor,
  w: Weights,
  blk: string,
  e: Pick<EncoderHparams, 'ffnKind' | 'act'>,
  precF32: boolean,
  then: LinearThen,
): Tensor {
  if (e.ffnKind === 'mlp') return linear(ctx, linear(ctx, m, w, `${blk}.ffn.fc1`, precF32, { act: e.act }), w, `${blk}.ffn.fc2`, precF32, then);
  const x12 = linear(ctx, m, w, `${blk}.ffn.w12`, precF32); // [2h, n, batch]
  return linear(ctx, ctx.swiglu(x12), w, `${blk}.ffn.w3`, precF32, then);
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
  const ctx = createContext(e.nLayer * 48 + 64);
  const patches = ctx.newTensor(GGML_F32, [shape.patchLen, np, batch]);
  patches.name = 'patches';
  patches.setInput();

  const embedName = shape.image ? tensorNames.encPatchEmbedImg : tensorNames.encPatchEmbed;
  let x = linear(ctx, patches, w, embedName, o.precF32); // [D, np, batch]
  if (e.imgTubeletSize !== null) x = ctx.add(x, w.get(shape.image ? tensorNames.encImgModEmbed : tensorNames.encVideoModEmbed));

  const posRows = (e.pos === 'learned' ? e.nCls : 0) + np;
  let pos = e.pos === 'sincos2d' || e.pos === 'sincos3d' || e.pos === 'learned' ? w.get(tensorNames.encPosEmbed) : null;
  let posTable: Tensor | null = null;
  if (pos && pos.ne[1] !== posRows) {
    if (e.pos === 'sincos3d')
      throw new GraphError(
        `the 3-D position table has ${pos.ne[1]} rows for the trained grid; this input gives ${np} patch tokens`,
        'UNSUPPORTED_INPUT_SIZE',
      );
    // another image size: the table is resized on the host (see position-interpolation.ts)
    posTable = ctx.newTensor(GGML_F32, [D, posRows]);
    posTable.name = 'pos_table';
    posTable.setInput();
    pos = posTable;
  }
  if (pos) {
    const offset = e.pos === 'learned' ? e.nCls * pos.nb[1] : 0;
    x = ctx.add(x, ctx.view(pos, [D, np], [pos.nb[1], pos.nb[1] * np, pos.nb[1] * np], offset));
  }
  let keepRows: Tensor | null = null;
  if (shape.keep !== undefined) {
    if (prefix > 0 || batch !== 1)
      throw new GraphError('a context-only encoding takes one item of a model without CLS or register tokens', 'UNSUPPORTED');
    keepRows = ctx.newTensor(typeByName('i32'), [shape.keep]);
    keepRows.name = 'keep_rows';
    keepRows.setInput();
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

  const hd = e.headDim;
  const H = e.nHead;
  let ropeCos: Tensor | null = null;
  let ropeSin: Tensor | null = null;
  if (e.pos === 'rope3d') {
    ropeCos = ctx.newTensor(GGML_F32, [hd, 1, n]);
    ropeSin = ctx.newTensor(GGML_F32, [hd, 1, n]);
    ropeCos.name = 'rope_cos';
    ropeSin.name = 'rope_sin';
    ropeCos.setInput();
    ropeSin.setInput();
  }
  let mask: Tensor | null = null;
  if (o.blockCausal) {
    mask = ctx.newTensor(GGML_F16, [n, n]);
    mask.name = 'block_causal_mask';
    mask.setInput();
  }

  const hierLayers = o.hierarchy ? e.hierLayers : null;
  if (o.hierarchy && hierLayers === null) throw new GraphError('this encoder has no hierarchy norms (jepa.enc.hier_layers)', 'UNSUPPORTED');
  const levels: Tensor[] = [];
  const attnOptions = { scale: 1 / Math.sqrt(hd), mask, flash: o.flash, kvType: o.kvType, precF32: o.precF32, cpu: w.onCpu };
  for (let l = 0; l < e.nLayer; l++) {
    const blk = tensorNames.encBlock(l);
    const h = layerNorm(ctx, x, w, `${blk}.ln1`, e.lnEps);
    const qkv = linear(ctx, h, w, `${blk}.attn.qkv`, o.precF32); // [3D, n, batch]
    const split = (which: number) => ctx.view(qkv, [hd, H, n, batch], [hd * 4, qkv.nb[1], qkv.nb[2]], which * D * 4);
    let q = split(0);
    let k = split(1);
    if (ropeCos && ropeSin) {
      q = applyRope(ctx, q, ropeCos, ropeSin, w.onCpu);
      k = applyRope(ctx, k, ropeCos, ropeSin, w.onCpu);
    }
    const heads = (t: Tensor) => ctx.permute(t, 0, 2, 1, 3); // [hd, H, n, B] -> [hd, n, H, B]
    const a = attention(ctx, heads(q), heads(k), heads(split(2)), attnOptions);
    x = linear(ctx, a, w, `${blk}.attn.proj`, o.precF32, { scale: e.layerScale ? w.get(`${blk}.ls1`) : null, residual: x });
    const m = layerNorm(ctx, x, w, `${blk}.ln2`, e.lnEps);
    x = encoderFfn(ctx, m, w, blk, e, o.precF32, { scale: e.layerScale ? w.get(`${blk}.ls2`) : null, residual: x });
    const level = hierLayers ? hierLayers.indexOf(l) : -1;
    if (level >= 0) levels.push(layerNorm(ctx, x, w, tensorNames.encHierNorm(level), e.lnEps));
  }
  const finalNorm = e.hierLayers !== null ? tensorNames.encHierNorm(e.hierLayers.length - 1) : tensorNames.encNorm;
  const output = hierLayers ? levels.reduce((a, b) => ctx.concat(a, b, 0)) : layerNorm(ctx, x, w, finalNorm, e.lnEps);
  output.name = 'tokens';
  output.setOutput();
  return { ctx, graph: ctx.buildGraph([output]), patches, posTable, ropeCos, ropeSin, mask, keepRows, output, tokens: n, prefix };
}

export { GGML_F16, GGML_F32 };
