import { POSITION_SCHEMES, positionPrefixRows } from './position-schemes.js';
import type {
  AcPredictorHparams,
  ActionPredictorHparams,
  EncoderHparams,
  HeadHparams,
  MaskedPredictorHparams,
  ModelHparams,
  TextHparams,
} from './model-spec.js';

/**
 * The canonical GGUF tensor names and shapes of schema v1 — the one place they are spelled.
 * Shapes are in ggml order (ne[0] first): a Linear weight of PyTorch shape [out, in] is stored as ne = [in, out].
 * 'matmul' tensors may be f32, f16, bf16, quantized, or i8 with an f32 `<name>.scale` [rows] beside them (q8_row,
 * see file-types.ts); 'f32' tensors are added, multiplied or concatenated by the
 * graph (norms, biases, layer scales, CLS/register tokens, position tables, mask tokens, modality vectors).
 */
export type TensorRole = 'matmul' | 'f32';

export interface TensorSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly role: TensorRole;
}

export const tensorNames = {
  encPatchEmbed: 'enc.patch_embed',
  encPatchEmbedImg: 'enc.patch_embed_img',
  encPosEmbed: 'enc.pos_embed',
  encClsToken: 'enc.cls_token',
  encRegTokens: 'enc.reg_tokens',
  encImgModEmbed: 'enc.img_mod_embed',
  encVideoModEmbed: 'enc.video_mod_embed',
  encBlock: (i: number) => `enc.blk.${i}`,
  encNorm: 'enc.norm',
  encHierNorm: (k: number) => `enc.hier_norm.${k}`,
  predBlock: (i: number) => `pred.blk.${i}`,
  headBlock: (i: number) => `head.blk.${i}`,
  alignBlock: (i: number) => `align.blk.${i}`,
  alignNorm: 'align.norm',
  textTokenEmbd: 'text.token_embd',
  textPosEmbd: 'text.pos_embd',
  textBlock: (i: number) => `text.blk.${i}`,
  textNorm: 'text.norm',
  textProj: 'text.proj',
} as const;

/** What an encoder block may vary beyond its widths (jepa.enc.ffn_kind, jepa.enc.qkv_bias). */
type BlockVariant = Pick<EncoderHparams, 'ffnKind' | 'qkvBias'>;
const PLAIN_BLOCK: BlockVariant = { ffnKind: 'mlp', qkvBias: true };

class TableBuilder {
  readonly specs: TensorSpec[] = [];
  matmul(name: string, nIn: number, nOut: number): void {
    this.specs.push({ name, shape: [nIn, nOut], role: 'matmul' });
  }
  vec(name: string, ...shape: number[]): void {
    this.specs.push({ name, shape, role: 'f32' });
  }
  /** Linear layer: `<prefix>.weight` [in, out] (+ `<prefix>.bias` [out]). */
  linear(prefix: string, nIn: number, nOut: number, bias = true): void {
    this.matmul(`${prefix}.weight`, nIn, nOut);
    if (bias) this.vec(`${prefix}.bias`, nOut);
  }
  norm(prefix: string, dim: number): void {
    this.vec(`${prefix}.weight`, dim);
    this.vec(`${prefix}.bias`, dim);
  }
  /**
   * Pre-LN ViT block with fused qkv (q; k; v along the output axis). The SwiGLU MLP has w12 [dim, 2·ffn]
   * (rows x1; x2, the SiLU'd half first) and w3 [ffn, dim] in place of fc1 / fc2.
   */
  vitBlock(prefix: string, dim: number, ffn: number, layerScale: boolean, v: BlockVariant = PLAIN_BLOCK): void {
    this.norm(`${prefix}.ln1`, dim);
    this.linear(`${prefix}.attn.qkv`, dim, 3 * dim, v.qkvBias);
    this.linear(`${prefix}.attn.proj`, dim, dim);
    if (layerScale) this.vec(`${prefix}.ls1`, dim);
    this.norm(`${prefix}.ln2`, dim);
    if (v.ffnKind === 'swiglu') {
      this.linear(`${prefix}.ffn.w12`, dim, 2 * ffn);
      this.linear(`${prefix}.ffn.w3`, ffn, dim);
    } else {
      this.linear(`${prefix}.ffn.fc1`, dim, ffn);
      this.linear(`${prefix}.ffn.fc2`, ffn, dim);
    }
    if (layerScale) this.vec(`${prefix}.ls2`, dim);
  }
}

/** Every tensor a model with these hparams has, in the order the forge and the converter write them. */
export function expectedTensors(h: Pick<ModelHparams, 'enc' | 'pred' | 'head'> & { text?: TextHparams | null }): TensorSpec[] {
  const b = new TableBuilder();
  encoderTensors(b, h.enc);
  if (h.pred?.kind === 'masked') maskedPredictorTensors(b, h.enc, h.pred);
  if (h.pred?.kind === 'action') actionPredictorTensors(b, h.enc, h.pred);
  if (h.pred?.kind === 'ac') acPredictorTensors(b, h.enc, h.pred);
  if (h.head) headTensors(b, h.enc, h.head);
  if (h.text) textTensors(b, h.enc, h.text);
  return b.specs;
}

/**
 * dino.txt: the vision head's blocks (SwiGLU, no qkv bias, layer scale) and norm, then the text tower. The token
 * table is 'f32' (read by get_rows, never a product), so a quantized file keeps it whole.
 */
function textTensors(b: TableBuilder, e: EncoderHparams, t: TextHparams): void {
  for (let i = 0; i < t.visionNLayer; i++)
    b.vitBlock(tensorNames.alignBlock(i), e.embedDim, t.visionFfnDim, true, { ffnKind: 'swiglu', qkvBias: false });
  b.norm(tensorNames.alignNorm, e.embedDim);
  b.vec(tensorNames.textTokenEmbd, t.embedDim, t.vocabSize);
  b.vec(tensorNames.textPosEmbd, t.embedDim, t.context);
  for (let i = 0; i < t.nLayer; i++) b.vitBlock(tensorNames.textBlock(i), t.embedDim, t.ffnDim, false, { ffnKind: 'mlp', qkvBias: false });
  b.norm(tensorNames.textNorm, t.embedDim);
  b.linear(tensorNames.textProj, t.embedDim, t.outDim, false);
}

function encoderTensors(b: TableBuilder, e: EncoderHparams): void {
  const D = e.embedDim;
  b.linear(tensorNames.encPatchEmbed, e.inChans * e.tubeletSize * e.patchSize * e.patchSize, D);
  if (e.imgTubeletSize !== null) {
    b.linear(tensorNames.encPatchEmbedImg, e.inChans * e.imgTubeletSize * e.patchSize * e.patchSize, D);
    b.vec(tensorNames.encImgModEmbed, D);
    b.vec(tensorNames.encVideoModEmbed, D);
  }
  if (POSITION_SCHEMES[e.pos].table) b.vec(tensorNames.encPosEmbed, D, positionPrefixRows(e) + e.nPatches);
  if (e.nCls > 0) b.vec(tensorNames.encClsToken, D, e.nCls);
  if (e.nReg > 0) b.vec(tensorNames.encRegTokens, D, e.nReg);
  for (let i = 0; i < e.nLayer; i++) b.vitBlock(tensorNames.encBlock(i), D, e.ffnDim, e.layerScale, e);
  if (e.hierLayers === null) {
    if (e.finalNorm) b.norm(tensorNames.encNorm, D);
  } else for (let k = 0; k < e.hierLayers.length; k++) b.norm(tensorNames.encHierNorm(k), D);
}

function maskedPredictorTensors(b: TableBuilder, e: EncoderHparams, p: MaskedPredictorHparams): void {
  const P = p.embedDim;
  if (p.embedMlp) {
    b.linear('pred.embed_in', p.embedInDim, e.embedDim);
    b.linear('pred.embed', e.embedDim, P);
  } else {
    b.linear('pred.embed', p.embedInDim, P);
  }
  b.vec('pred.mask_tokens', P, p.nMaskTokens);
  if (p.pos === 'table') b.vec('pred.pos_embed', P, p.posRows);
  if (p.modalityVectors) {
    b.vec('pred.img_mod_embed', P);
    b.vec('pred.video_mod_embed', P);
  }
  for (let i = 0; i < p.nLayer; i++) b.vitBlock(tensorNames.predBlock(i), P, p.ffnDim, false);
  b.norm('pred.norm', P);
  b.linear('pred.proj', P, p.outDim);
  if (p.projContext) b.linear('pred.proj_context', P, p.outDim);
}

function acPredictorTensors(b: TableBuilder, e: EncoderHparams, p: AcPredictorHparams): void {
  const P = p.embedDim;
  b.linear('pred.embed', e.embedDim, P);
  b.linear('pred.ac.action', p.actionDim, P);
  b.linear('pred.ac.state', p.stateDim, P);
  if (p.extrinsics) b.linear('pred.ac.extrinsics', p.actionDim - 1, P);
  for (let i = 0; i < p.nLayer; i++) b.vitBlock(tensorNames.predBlock(i), P, p.ffnDim, false);
  b.norm('pred.norm', P);
  b.linear('pred.proj', P, e.embedDim);
}

function actionPredictorTensors(b: TableBuilder, e: EncoderHparams, p: ActionPredictorHparams): void {
  const P = p.embedDim;
  const inner = p.nHead * p.headDim;
  b.linear('pred.projector.fc1', e.embedDim, p.projHidden);
  b.linear('pred.projector.fc2', p.projHidden, P);
  b.linear('pred.action.embed', p.actionDim, p.actionDim);
  b.linear('pred.action.fc1', p.actionDim, p.actionHidden);
  b.linear('pred.action.fc2', p.actionHidden, P);
  b.vec('pred.pos_embed', P, p.nFrames);
  for (let i = 0; i < p.nLayer; i++) {
    const blk = tensorNames.predBlock(i);
    b.linear(`${blk}.adaln`, P, 6 * P);
    b.norm(`${blk}.attn_norm`, P);
    b.linear(`${blk}.attn.qkv`, P, 3 * inner, false);
    b.linear(`${blk}.attn.proj`, inner, P);
    b.norm(`${blk}.ffn_norm`, P);
    b.linear(`${blk}.ffn.fc1`, P, p.ffnDim);
    b.linear(`${blk}.ffn.fc2`, p.ffnDim, P);
  }
  b.norm('pred.norm', P);
  b.linear('pred.out_proj.fc1', P, p.projHidden);
  b.linear('pred.out_proj.fc2', p.projHidden, P);
}

function headTensors(b: TableBuilder, e: EncoderHparams, h: HeadHparams): void {
  const D = e.embedDim;
  if (h.kind === 'linear') {
    if (h.pool === 'mean') b.norm('head.fc_norm', D);
    b.linear('head.cls', D, h.nClasses);
    return;
  }
  b.vec('head.query', D);
  for (let i = 0; i < h.depth; i++) b.vitBlock(tensorNames.headBlock(i), D, h.ffnDim, false);
  b.norm('head.xattn.ln1', D);
  b.linear('head.xattn.q', D, D);
  b.linear('head.xattn.kv', D, 2 * D);
  b.norm('head.xattn.ln2', D);
  b.linear('head.xattn.ffn.fc1', D, h.ffnDim);
  b.linear('head.xattn.ffn.fc2', h.ffnDim, D);
  b.linear('head.cls', D, h.nClasses);
}
