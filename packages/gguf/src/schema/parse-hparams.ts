import { formatBytes, maxInputMib } from '../budgets.js';
import { GgufError } from '../errors.js';
import type { GgufMetadata } from '../gguf/value.js';
import {
  FAMILIES,
  type Activation,
  type AttnMode,
  type CropRounding,
  type Family,
  type FamilyTraits,
  type FfnKind,
  type HeadPool,
  type PositionScheme,
  type PredictorPosition,
  type Resample,
  type RopeLayout,
} from './families.js';
import { FAMILY_TRAITS } from './family/registry.js';
import { LIMITS, MIN_ROPE_HEAD_DIM, SCHEMA_VERSION } from './limits.js';
import { MetadataValues } from './metadata-values.js';
import { POSITION_SCHEMES } from './position-schemes.js';
import type {
  AcPredictorHparams,
  ActionPredictorHparams,
  EncoderHparams,
  HeadHparams,
  MaskedPredictorHparams,
  ModelHparams,
  PredictorHparams,
  PreprocessSpec,
  Rope3dParams,
  TextHparams,
} from './model-spec.js';

function invariant(ok: boolean, message: string): void {
  if (!ok) throw new GgufError('JEPA_INVARIANT', message);
}

/** Metadata → validated hyperparameters, in the spec's order: identity, ranges and enums, then derived invariants. */
export function parseHparams(metadata: GgufMetadata, skippedKeys: Iterable<string> = []): ModelHparams {
  const m = new MetadataValues(metadata, skippedKeys);
  const arch = m.peek('general.architecture');
  if (arch?.type !== 'string' || arch.value !== 'jepa') {
    const found = arch === undefined ? 'missing' : arch.type === 'string' ? `'${arch.value}'` : `a ${arch.type}`;
    throw new GgufError('JEPA_ARCH', `general.architecture must be 'jepa', found ${found}`);
  }
  m.opt('general.architecture');
  const version = m.peek('jepa.schema_version');
  if (version === undefined) throw new GgufError('JEPA_KEY_MISSING', `metadata key 'jepa.schema_version' is missing`);
  if (version.type !== 'u32' || version.value !== SCHEMA_VERSION) {
    const found = version.type === 'u32' ? String(version.value) : `a ${version.type}`;
    throw new GgufError('JEPA_SCHEMA_VERSION', `jepa.schema_version must be u32 ${SCHEMA_VERSION}, found ${found}`);
  }
  m.opt('jepa.schema_version');
  const fam = m.peek('jepa.family');
  if (fam === undefined) throw new GgufError('JEPA_KEY_MISSING', `metadata key 'jepa.family' is missing`);
  if (fam.type !== 'string' || !(FAMILIES as readonly string[]).includes(fam.value)) {
    const found = fam.type === 'string' ? `'${fam.value}'` : `a ${fam.type}`;
    throw new GgufError('JEPA_FAMILY', `jepa.family must be one of ${FAMILIES.join(', ')}, found ${found}`);
  }
  const family = m.opt<string>('jepa.family') as Family;
  const traits = FAMILY_TRAITS[family];
  m.refuseUnknownKeys();

  const name = m.req<string>('general.name', 'every model is named');
  const license = m.opt<string>('general.license');
  const fileType = m.opt<number>('general.file_type');
  const enc = parseEncoder(m, family, traits);
  const pred = parsePredictor(m, family, traits, enc);
  const { head, labels } = parseHead(m, family, traits, enc);
  const text = parseText(m, family, traits, enc);
  const pre = parsePre(m, enc);
  checkInputBudget(enc, pre);
  m.refuseUnusedKeys(family);
  return { family, schemaVersion: SCHEMA_VERSION, name, license, fileType, enc, pred, head, text, pre, labels };
}

function parseEncoder(m: MetadataValues, family: Family, traits: FamilyTraits): EncoderHparams {
  const why = `every ${family} encoder`;
  const embedDim = m.req<number>('jepa.enc.embed_dim', why);
  const nLayer = m.req<number>('jepa.enc.n_layer', why);
  const nHead = m.req<number>('jepa.enc.n_head', why);
  const ffnDim = m.req<number>('jepa.enc.ffn_dim', why);
  const patchSize = m.req<number>('jepa.enc.patch_size', why);
  const tubeletSize = m.req<number>('jepa.enc.tubelet_size', why);
  const imgSize = m.req<number>('jepa.enc.img_size', why);
  const nFrames = m.req<number>('jepa.enc.n_frames', why);
  const inChans = m.req<number>('jepa.enc.in_chans', why);
  const lnEps = m.req<number>('jepa.enc.ln_eps', why);
  const act = m.req<string>('jepa.enc.act', why) as Activation;
  const pos = m.req<string>('jepa.enc.pos', why) as PositionScheme;
  const nCls = m.req<number>('jepa.enc.n_cls', why);
  const nReg = m.req<number>('jepa.enc.n_reg', why);
  const layerScale = m.req<boolean>('jepa.enc.layer_scale', why);
  const attnMode = m.req<string>('jepa.enc.attn_mode', why) as AttnMode;
  const ffnKind = (m.opt<string>('jepa.enc.ffn_kind') ?? 'mlp') as FfnKind;
  const qkvBias = m.opt<boolean>('jepa.enc.qkv_bias') ?? true;
  const posInterpOffset = m.opt<number>('jepa.enc.pos_interp_offset') ?? 0;
  const finalNorm = m.opt<boolean>('jepa.enc.final_norm') ?? true;

  invariant(pos === traits.pos, `jepa.enc.pos = '${pos}' but the ${family} family uses '${traits.pos}'`);
  const rotary = POSITION_SCHEMES[pos].rotary;
  const rope = rotary !== null ? parseEncoderRope(m, family, traits) : null;
  invariant(embedDim % nHead === 0, `jepa.enc.embed_dim ${embedDim} is not divisible by jepa.enc.n_head ${nHead}`);
  const headDim = embedDim / nHead;
  if (rotary === '3d') checkRopeHeadDim('jepa.enc', headDim);
  if (rotary === '2d') {
    invariant(headDim % 4 === 0, `jepa.enc head width ${headDim} must be a multiple of 4: 2-D RoPE rotates pairs on two axes`);
    invariant(!rope!.interpolate, 'jepa.enc.rope_interpolate is true, but 2-D RoPE normalises each axis to [-1, 1] on any grid');
  }
  invariant(imgSize % patchSize === 0, `jepa.enc.img_size ${imgSize} is not a multiple of jepa.enc.patch_size ${patchSize}`);
  if (traits.video) {
    invariant(nFrames % tubeletSize === 0, `jepa.enc.n_frames ${nFrames} is not a multiple of jepa.enc.tubelet_size ${tubeletSize}`);
  } else {
    invariant(
      nFrames === 1 && tubeletSize === 1,
      `${family} is an image family: jepa.enc.n_frames and tubelet_size must be 1, found ${nFrames} and ${tubeletSize}`,
    );
  }
  invariant(nCls === traits.nCls, `jepa.enc.n_cls = ${nCls} but the ${family} family has ${traits.nCls} CLS token(s)`);
  invariant(traits.registers || nReg === 0, `jepa.enc.n_reg = ${nReg} but the ${family} family has no register tokens`);
  invariant(traits.layerScale || !layerScale, `jepa.enc.layer_scale is true but the ${family} family has no layer scale`);
  invariant(ffnKind === 'mlp' || traits.swiglu, `jepa.enc.ffn_kind = '${ffnKind}' but the ${family} family's blocks have the plain MLP`);
  invariant(ffnKind === 'mlp' || act === 'silu', `jepa.enc.ffn_kind = 'swiglu' gates with SiLU, so jepa.enc.act must be 'silu', found '${act}'`);
  invariant(posInterpOffset === 0 || pos === 'learned', `jepa.enc.pos_interp_offset is set but ${family} has no learned position table`);
  invariant(finalNorm || traits.finalNormOptional, `jepa.enc.final_norm is false but the ${family} encoder always ends in enc.norm`);
  invariant(qkvBias || traits.qkvBiasOptional, `jepa.enc.qkv_bias is false but the ${family} family's attention always carries a qkv bias`);
  invariant(
    attnMode === 'full' || traits.blockCausal,
    `jepa.enc.attn_mode = 'block_causal' on ${family}, whose graph has no mask (only levjepa does)`,
  );
  const gridSize = imgSize / patchSize;
  const gridFrames = nFrames / tubeletSize;
  const nPatches = gridFrames * gridSize * gridSize;
  const maxTokens = LIMITS.tokens[1];
  if (nPatches + nCls + nReg > maxTokens) {
    throw new GgufError('JEPA_RANGE', `encoder token count ${nPatches + nCls + nReg} (patches + cls + registers) is above the maximum ${maxTokens}`);
  }

  let imgTubeletSize: number | null = null;
  let hierLayers: number[] | null = null;
  if (traits.imageTokenizer) imgTubeletSize = m.req<number>('jepa.enc.img_tubelet_size', 'vjepa2_1 has an image tokenizer');
  if (traits.hierarchyNorms) {
    const nHier = m.req<number>('jepa.enc.n_hier_norm', 'vjepa2_1 ends in hierarchy norms');
    hierLayers = m.req<number[]>('jepa.enc.hier_layers', 'vjepa2_1 ends in hierarchy norms');
    invariant(hierLayers.length === nHier, `jepa.enc.hier_layers has ${hierLayers.length} entries, jepa.enc.n_hier_norm is ${nHier}`);
    hierLayers.forEach((l, i) => {
      invariant(l < nLayer, `jepa.enc.hier_layers[${i}] = ${l} is not a block index below n_layer ${nLayer}`);
      invariant(i === 0 || l > hierLayers![i - 1], `jepa.enc.hier_layers must increase strictly, [${i}] = ${l}`);
    });
    invariant(
      hierLayers[nHier - 1] === nLayer - 1,
      `jepa.enc.hier_layers must end at the last block ${nLayer - 1}, ends at ${hierLayers[nHier - 1]}`,
    );
  }
  return {
    embedDim,
    nLayer,
    nHead,
    headDim,
    ffnDim,
    patchSize,
    tubeletSize,
    imgSize,
    nFrames,
    inChans,
    lnEps,
    act,
    pos,
    rope,
    nCls,
    nReg,
    layerScale,
    attnMode,
    ffnKind,
    qkvBias,
    posInterpOffset,
    finalNorm,
    gridSize,
    gridFrames,
    nPatches,
    imgTubeletSize,
    hierLayers,
  };
}

function parseEncoderRope(m: MetadataValues, family: Family, traits: FamilyTraits): Rope3dParams {
  const why = 'the encoder uses rope3d';
  const layout = m.req<string>('jepa.enc.rope_freq_layout', why) as RopeLayout;
  invariant(layout === traits.ropeLayout, `jepa.enc.rope_freq_layout = '${layout}' but ${family} uses the '${traits.ropeLayout}' layout`);
  const theta = m.req<number>('jepa.enc.rope_theta', why);
  const interpolate = m.req<boolean>('jepa.enc.rope_interpolate', why);
  const refGrid = m.opt<number>('jepa.enc.rope_ref_grid');
  invariant(!interpolate || refGrid !== null, `jepa.enc.rope_interpolate is true but jepa.enc.rope_ref_grid is missing: nothing to rescale from`);
  invariant(interpolate || refGrid === null, `jepa.enc.rope_ref_grid is set but jepa.enc.rope_interpolate is false`);
  return { layout, theta, interpolate, refGrid };
}

function checkRopeHeadDim(prefix: string, headDim: number): void {
  invariant(
    headDim % 2 === 0 && headDim >= MIN_ROPE_HEAD_DIM,
    `${prefix} head width ${headDim} must be even and at least ${MIN_ROPE_HEAD_DIM}: 3-D RoPE rotates pairs on three axes`,
  );
}

function parsePredictor(m: MetadataValues, family: Family, traits: FamilyTraits, enc: EncoderHparams): PredictorHparams | null {
  const kind = traits.predictorRequired ? m.req<string>('jepa.pred.kind', `a ${family} model has a predictor`) : m.opt<string>('jepa.pred.kind');
  if (kind === null) return null;
  invariant(
    (traits.predictors as readonly string[]).includes(kind),
    `jepa.pred.kind = '${kind}' but ${family} ${traits.predictors.length > 0 ? `has a ${traits.predictors.join(' or ')} predictor` : 'has no predictor'}`,
  );
  const why = `jepa.pred.kind = '${kind}'`;
  const embedDim = m.req<number>('jepa.pred.embed_dim', why);
  const nLayer = m.req<number>('jepa.pred.n_layer', why);
  const nHead = m.req<number>('jepa.pred.n_head', why);
  const ffnDim = m.req<number>('jepa.pred.ffn_dim', why);
  const lnEps = m.req<number>('jepa.pred.ln_eps', why);
  const act = m.req<string>('jepa.pred.act', why) as Activation;
  if (kind === 'masked') {
    const nMaskTokens = m.req<number>('jepa.pred.n_mask_tokens', why);
    const gridSize = m.req<number>('jepa.pred.grid_size', 'a masked predictor decodes token ids on a position grid');
    const pos = (m.opt<string>('jepa.pred.pos') ?? 'rope3d') as PredictorPosition;
    const rope = pos === 'rope3d' ? maskedPredictorRope(m, family, traits, why) : null;
    invariant(
      pos === 'rope3d' || traits.ropeLayout === null,
      `jepa.pred.pos = 'table' but ${family} predictors rotate with 3-D RoPE (jepa.pred.pos = 'rope3d')`,
    );
    invariant(
      pos === 'rope3d' || gridSize === enc.gridSize,
      `jepa.pred.grid_size ${gridSize} must equal the encoder grid ${enc.gridSize}: the table positions are the encoder's token ids`,
    );
    const outDim = m.req<number>('jepa.pred.out_dim', why);
    const embedInDim = m.req<number>('jepa.pred.embed_in_dim', why);
    const projContext = m.req<boolean>('jepa.pred.proj_context', why);
    invariant(embedDim % nHead === 0, `jepa.pred.embed_dim ${embedDim} is not divisible by jepa.pred.n_head ${nHead}`);
    if (pos === 'rope3d') checkRopeHeadDim('jepa.pred', embedDim / nHead);
    const embedMlp = embedInDim !== enc.embedDim;
    invariant(
      !embedMlp || (enc.hierLayers !== null && embedInDim === enc.hierLayers.length * enc.embedDim),
      `jepa.pred.embed_in_dim ${embedInDim} must equal jepa.enc.embed_dim ${enc.embedDim}${enc.hierLayers ? ` or n_hier_norm·embed_dim ${enc.hierLayers.length * enc.embedDim}` : ''}`,
    );
    const p: MaskedPredictorHparams = {
      kind,
      embedDim,
      nLayer,
      nHead,
      headDim: embedDim / nHead,
      ffnDim,
      lnEps,
      act,
      nMaskTokens,
      gridSize,
      pos,
      rope,
      posRows: pos === 'table' ? enc.gridFrames * gridSize * gridSize : 0,
      outDim,
      embedInDim,
      embedMlp,
      projContext,
      modalityVectors: traits.predictorModalityVectors,
    };
    return p;
  }
  if (kind === 'ac') return parseAcPredictor(m, enc, { embedDim, nLayer, nHead, ffnDim, lnEps, act }, why);
  const headDim = m.req<number>('jepa.pred.head_dim', why);
  const nFrames = m.req<number>('jepa.pred.n_frames', 'a LeWM predictor conditions on a history of frames');
  const actionDim = m.req<number>('jepa.pred.action_dim', 'a LeWM predictor embeds actions');
  const actionHidden = m.req<number>('jepa.pred.action_hidden', why);
  const actionAct = m.req<string>('jepa.pred.action_act', why) as Activation;
  const projHidden = m.req<number>('jepa.pred.proj_hidden', why);
  const projAct = m.req<string>('jepa.pred.proj_act', why) as Activation;
  const adalnEps = m.req<number>('jepa.pred.adaln_eps', why);
  const p: ActionPredictorHparams = {
    kind: 'action',
    embedDim,
    nLayer,
    nHead,
    headDim,
    ffnDim,
    lnEps,
    adalnEps,
    act,
    nFrames,
    actionDim,
    actionHidden,
    actionAct,
    projHidden,
    projAct,
  };
  return p;
}

function maskedPredictorRope(m: MetadataValues, family: Family, traits: FamilyTraits, why: string): Rope3dParams {
  invariant(
    traits.ropeLayout !== null,
    `jepa.pred.pos = 'rope3d' but ${family} has fixed sincos positions: its predictor adds table rows (jepa.pred.pos = 'table')`,
  );
  const layout = m.req<string>('jepa.pred.rope_freq_layout', why) as RopeLayout;
  invariant(layout === traits.ropeLayout, `jepa.pred.rope_freq_layout = '${layout}' but ${family} uses the '${traits.ropeLayout}' layout`);
  const theta = m.req<number>('jepa.pred.rope_theta', why);
  return { layout, theta, interpolate: false, refGrid: null };
}

type CommonPredictor = Pick<AcPredictorHparams, 'embedDim' | 'nLayer' | 'nHead' | 'ffnDim' | 'lnEps' | 'act'>;

function parseAcPredictor(m: MetadataValues, enc: EncoderHparams, c: CommonPredictor, why: string): AcPredictorHparams {
  invariant(c.embedDim % c.nHead === 0, `jepa.pred.embed_dim ${c.embedDim} is not divisible by jepa.pred.n_head ${c.nHead}`);
  const headDim = c.embedDim / c.nHead;
  checkRopeHeadDim('jepa.pred', headDim);
  invariant(c.act !== 'silu', `jepa.pred.act = 'silu' (V-JEPA 2-AC's SwiGLU variant) is not supported; the released predictor uses gelu`);
  const layout = m.req<string>('jepa.pred.rope_freq_layout', why) as RopeLayout;
  invariant(layout === enc.rope?.layout, `jepa.pred.rope_freq_layout = '${layout}' but the encoder uses '${enc.rope?.layout}'`);
  const theta = m.req<number>('jepa.pred.rope_theta', why);
  const actionDim = m.req<number>('jepa.pred.action_dim', 'a V-JEPA 2-AC predictor embeds actions');
  const stateDim = m.req<number>('jepa.pred.state_dim', 'a V-JEPA 2-AC predictor embeds the robot state');
  const extrinsics = m.req<boolean>('jepa.pred.extrinsics', why);
  invariant(!extrinsics || actionDim > 1, `jepa.pred.extrinsics needs jepa.pred.action_dim > 1 (the extrinsics width is action_dim − 1)`);
  const frameCausal = m.req<boolean>('jepa.pred.frame_causal', why);
  const tubeletSize = m.req<number>('jepa.pred.tubelet_size', why);
  const nFrames = m.req<number>('jepa.pred.n_frames', why);
  invariant(nFrames % tubeletSize === 0, `jepa.pred.n_frames ${nFrames} is not a multiple of jepa.pred.tubelet_size ${tubeletSize}`);
  const gridSize = m.req<number>('jepa.pred.grid_size', 'a V-JEPA 2-AC predictor snaps spatial positions to a grid size');
  return {
    kind: 'ac',
    ...c,
    headDim,
    actionDim,
    stateDim,
    extrinsics,
    condTokens: extrinsics ? 3 : 2,
    frameCausal,
    tubeletSize,
    nFrames,
    maxSteps: nFrames / tubeletSize,
    gridSize,
    rope: { layout, theta, interpolate: false, refGrid: null },
  };
}

function parseHead(
  m: MetadataValues,
  family: Family,
  traits: FamilyTraits,
  enc: EncoderHparams,
): { head: HeadHparams | null; labels: string[] | null } {
  const kind = m.opt<string>('jepa.head.kind');
  if (kind === null) return { head: null, labels: null };
  invariant(traits.head !== null, `jepa.head.kind is set but ${family} has no head in schema v1`);
  invariant(kind === traits.head, `jepa.head.kind = '${kind}' but the ${family} classifier is '${traits.head}'`);
  const why = `jepa.head.kind = '${kind}'`;
  const nClasses = m.req<number>('jepa.head.n_classes', why);
  const labels = m.opt<string[]>('jepa.head.labels');
  invariant(labels === null || labels.length === nClasses, `jepa.head.labels has ${labels?.length} entries, jepa.head.n_classes is ${nClasses}`);
  if (kind === 'linear') {
    const pool = m.req<string>('jepa.head.pool', why) as HeadPool;
    const lnEps = pool === 'mean' ? m.req<number>('jepa.head.ln_eps', 'a mean-pooled linear head normalises the mean with head.fc_norm') : null;
    return { head: { kind: 'linear', nClasses, pool, lnEps }, labels };
  }
  const depth = m.req<number>('jepa.head.depth', why);
  const nHead = m.req<number>('jepa.head.n_head', why);
  const ffnDim = m.req<number>('jepa.head.ffn_dim', why);
  const lnEps = m.req<number>('jepa.head.ln_eps', why);
  const act = m.req<string>('jepa.head.act', why) as Activation;
  invariant(enc.embedDim % nHead === 0, `jepa.enc.embed_dim ${enc.embedDim} is not divisible by jepa.head.n_head ${nHead}`);
  return {
    head: { kind: 'attentive', nClasses, depth, nHead, headDim: enc.embedDim / nHead, ffnDim, lnEps, act },
    labels,
  };
}

/** dino.txt's text side: present when jepa.text.embed_dim is set. */
function parseText(m: MetadataValues, family: Family, traits: FamilyTraits, enc: EncoderHparams): TextHparams | null {
  const embedDim = m.opt<number>('jepa.text.embed_dim');
  if (embedDim === null) return null;
  invariant(traits.text, `jepa.text.embed_dim is set but ${family} models have no text side (dino.txt is dinov3's)`);
  const why = 'a model with a text tower (jepa.text.embed_dim)';
  const nLayer = m.req<number>('jepa.text.n_layer', why);
  const nHead = m.req<number>('jepa.text.n_head', why);
  const ffnDim = m.req<number>('jepa.text.ffn_dim', why);
  const context = m.req<number>('jepa.text.context', why);
  const lnEps = m.req<number>('jepa.text.ln_eps', why);
  const act = m.req<string>('jepa.text.act', why) as Activation;
  const outDim = m.req<number>('jepa.text.out_dim', why);
  const logitScale = m.req<number>('jepa.text.logit_scale', why);
  const merges = m.req<string[]>('jepa.text.merges', why);
  const startId = m.req<number>('jepa.text.start_id', why);
  const endId = m.req<number>('jepa.text.end_id', why);
  const visionNLayer = m.req<number>('jepa.text.vision_n_layer', why);
  const visionFfnDim = m.req<number>('jepa.text.vision_ffn_dim', why);
  invariant(embedDim % nHead === 0, `jepa.text.embed_dim ${embedDim} is not divisible by jepa.text.n_head ${nHead}`);
  invariant(
    outDim === 2 * enc.embedDim,
    `jepa.text.out_dim ${outDim} must be 2·jepa.enc.embed_dim = ${2 * enc.embedDim}: the image side is concat(CLS, patch mean)`,
  );
  for (const [i, merge] of merges.entries()) invariant(/^\S+ \S+$/u.test(merge), `jepa.text.merges[${i}] is not two pieces separated by one space`);
  const vocabSize = 512 + merges.length + 2;
  invariant(startId === vocabSize - 2, `jepa.text.start_id ${startId} must be 512 + ${merges.length} merges = ${vocabSize - 2}`);
  invariant(endId === vocabSize - 1, `jepa.text.end_id ${endId} must be the last id, ${vocabSize - 1}`);
  return {
    embedDim,
    nLayer,
    nHead,
    headDim: embedDim / nHead,
    ffnDim,
    context,
    lnEps,
    act,
    outDim,
    logitScale,
    merges,
    vocabSize,
    startId,
    endId,
    visionNLayer,
    visionFfnDim,
    visionLnEps: lnEps,
  };
}

/** How far from 0 a recipe may normalise a pixel; real recipes stay within ±3. */
const MAX_NORMALISED = 10_000;

function parsePre(m: MetadataValues, enc: EncoderHparams): PreprocessSpec {
  const why = 'every model carries its preprocessing recipe';
  const mean = m.req<number[]>('jepa.pre.mean', why);
  const std = m.req<number[]>('jepa.pre.std', why);
  const resizeShort = m.opt<number>('jepa.pre.resize_short');
  const squash = m.opt<number>('jepa.pre.squash_size');
  const crop = m.req<number>('jepa.pre.crop', why);
  const resample = m.req<string>('jepa.pre.resample', why) as Resample;
  const rescale = m.req<number>('jepa.pre.rescale', why);
  const cropRounding = m.req<string>('jepa.pre.crop_rounding', why) as CropRounding;
  const offset = m.opt<number>('jepa.pre.offset');
  invariant(mean.length === enc.inChans, `jepa.pre.mean has ${mean.length} values, jepa.enc.in_chans is ${enc.inChans}`);
  invariant(std.length === enc.inChans, `jepa.pre.std has ${std.length} values, jepa.enc.in_chans is ${enc.inChans}`);
  std.forEach((s, i) => {
    if (s === 0) throw new GgufError('JEPA_RANGE', `jepa.pre.std[${i}] is 0: it is a divisor`);
    // an 8-bit pixel's normalised value, at both ends: past this the encoder's activations overflow f32
    const shift = offset ?? 0;
    const [lo, hi] = [(shift - mean[i]!) / s, (255 * rescale + shift - mean[i]!) / s].sort((a, b) => a - b);
    if (!(Math.abs(lo!) <= MAX_NORMALISED && Math.abs(hi!) <= MAX_NORMALISED))
      throw new GgufError(
        'JEPA_RANGE',
        `jepa.pre.mean[${i}] ${mean[i]} and jepa.pre.std[${i}] ${s} map 8-bit pixels to [${lo!.toPrecision(3)}, ${hi!.toPrecision(3)}]; a recipe keeps them within ±${MAX_NORMALISED} (ImageNet's: [-2.1, 2.6])`,
      );
  });
  if ((resizeShort === null) === (squash === null)) {
    throw new GgufError(
      resizeShort === null ? 'JEPA_KEY_MISSING' : 'JEPA_INVARIANT',
      `exactly one of jepa.pre.resize_short and jepa.pre.squash_size must be set, found ${resizeShort === null ? 'neither' : 'both'}`,
    );
  }
  const resize = resizeShort !== null ? { mode: 'short' as const, size: resizeShort } : { mode: 'squash' as const, size: squash as number };
  invariant(crop <= resize.size, `jepa.pre.crop ${crop} is larger than the resize size ${resize.size}`);
  return { mean, std, resize, crop, resample, rescale, ...(offset !== null ? { offset } : {}), cropRounding };
}

/**
 * The float32 tensor one item becomes (C·T·H·W: max(3, in_chans) channels, n_frames frames, crop² pixels) is sized
 * from the recipe alone, so it is costed here, before any image or frame buffer exists.
 */
function checkInputBudget(enc: EncoderHparams, pre: PreprocessSpec): void {
  const channels = Math.max(3, enc.inChans);
  const bytes = 4 * channels * enc.nFrames * pre.crop * pre.crop;
  const maxMib = maxInputMib();
  if (bytes <= maxMib * 2 ** 20) return;
  const frames = enc.nFrames > 1 ? `jepa.enc.n_frames ${enc.nFrames} × ` : '';
  throw new GgufError(
    'JEPA_BUDGET',
    `${frames}jepa.pre.crop ${pre.crop}² × ${channels} channels needs a ${formatBytes(bytes)} float32 input tensor per item; ` +
      `the limit is JEPA_MAX_INPUT_MIB=${maxMib} (set it higher to allow)`,
  );
}
