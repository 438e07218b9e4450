import { FAMILY_TRAITS, type Family } from '../schema/families.js';
import type { EncoderHparams, HeadHparams, ModelHparams, PredictorHparams, PreprocessSpec } from '../schema/model-spec.js';

const IMAGENET: Pick<PreprocessSpec, 'mean' | 'std'> = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const f32 = Math.fround;

/**
 * Tiny, valid hparams per family: D 32 (so q8_0/q4_0 blocks fit matmul rows), 2 heads, 2 layers, 8×8 pixels in
 * 4×4 patches. Video families have 4 frames; the predictor and head are the family's own kinds.
 */
export function tinyHparams(family: Family, withPredictor: boolean, withHead: boolean): ModelHparams {
  const enc = tinyEncoder(family);
  const pred = withPredictor ? tinyPredictor(family, enc) : null;
  const linear = FAMILY_TRAITS[family].head === 'linear';
  const head: HeadHparams | null = !withHead
    ? null
    : linear
      ? { kind: 'linear', nClasses: 5, pool: enc.nCls > 0 ? 'first' : 'mean', lnEps: enc.nCls > 0 ? null : f32(1e-5) }
      : {
          kind: 'attentive',
          nClasses: 5,
          depth: family === 'vjepa' ? 0 : 1,
          nHead: 2,
          headDim: 16,
          ffnDim: 64,
          lnEps: f32(1e-6),
          act: 'gelu',
        };
  const labels = head ? ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] : null;
  const pre: PreprocessSpec =
    family === 'ijepa'
      ? {
          mean: [0.5, 0.5, 0.5],
          std: [0.5, 0.5, 0.5],
          resize: { mode: 'squash', size: 8 },
          crop: 8,
          resample: 'bilinear',
          rescale: f32(1 / 255),
          cropRounding: 'round',
        }
      : { ...IMAGENET, resize: { mode: 'short', size: 9 }, crop: 8, resample: 'bicubic', rescale: f32(1 / 255), cropRounding: 'round' };
  return {
    family,
    schemaVersion: 1,
    name: `forged-${family}`,
    license: 'CC0-1.0',
    fileType: 0,
    enc,
    pred,
    head,
    text: null,
    pre: { ...pre, mean: pre.mean.map(f32), std: pre.std.map(f32) },
    labels,
  };
}

function tinyEncoder(family: Family): EncoderHparams {
  const video = FAMILY_TRAITS[family].video;
  const tubeletSize = family === 'levjepa' || !video ? 1 : 2;
  const nFrames = video ? 4 : 1;
  const rope =
    family === 'vjepa2' || family === 'levjepa'
      ? { layout: 'tiled' as const, theta: 10000, interpolate: false, refGrid: null }
      : family === 'vjepa2_1'
        ? { layout: 'interleaved' as const, theta: 10000, interpolate: true, refGrid: 4 }
        : family === 'dinov3'
          ? { layout: 'interleaved' as const, theta: 100, interpolate: false, refGrid: null }
          : null;
  const pos = rope
    ? FAMILY_TRAITS[family].pos
    : family === 'ijepa'
      ? ('sincos2d' as const)
      : family === 'vjepa'
        ? ('sincos3d' as const)
        : family === 'videomae'
          ? ('sincos1d' as const)
          : ('learned' as const);
  const nCls = FAMILY_TRAITS[family].nCls;
  const gridSize = 2;
  const gridFrames = nFrames / tubeletSize;
  return {
    embedDim: 32,
    nLayer: 2,
    nHead: 2,
    headDim: 16,
    ffnDim: 64,
    patchSize: 4,
    tubeletSize,
    imgSize: 8,
    nFrames,
    inChans: 3,
    lnEps: f32(family === 'lewm' ? 1e-12 : family === 'dinov3' ? 1e-5 : 1e-6),
    act: 'gelu',
    pos,
    rope,
    nCls,
    nReg: FAMILY_TRAITS[family].registers ? 2 : 0,
    layerScale: FAMILY_TRAITS[family].layerScale,
    attnMode: family === 'levjepa' ? 'block_causal' : 'full',
    ffnKind: 'mlp',
    qkvBias: true,
    posInterpOffset: 0,
    // VideoMAE's released classifiers mean-pool: no final norm
    finalNorm: family !== 'videomae',
    gridSize,
    gridFrames,
    nPatches: gridFrames * gridSize * gridSize,
    imgTubeletSize: family === 'vjepa2_1' ? 1 : null,
    hierLayers: family === 'vjepa2_1' ? [0, 1] : null,
  };
}

function tinyPredictor(family: Family, enc: EncoderHparams): PredictorHparams | null {
  if (family === 'lewm') {
    return {
      kind: 'action',
      embedDim: 32,
      nLayer: 2,
      nHead: 2,
      headDim: 24,
      ffnDim: 64,
      lnEps: f32(1e-5),
      adalnEps: f32(1e-6),
      act: 'gelu',
      nFrames: 3,
      actionDim: 10,
      actionHidden: 40,
      actionAct: 'silu',
      projHidden: 64,
      projAct: 'gelu',
    };
  }
  if (family !== 'vjepa2' && family !== 'vjepa2_1') return null;
  const v21 = family === 'vjepa2_1';
  return {
    kind: 'masked',
    embedDim: 32,
    nLayer: 2,
    nHead: 2,
    headDim: 16,
    ffnDim: 64,
    lnEps: f32(1e-6),
    act: 'gelu',
    nMaskTokens: v21 ? 2 : 3,
    gridSize: enc.gridSize,
    pos: 'rope3d',
    posRows: 0,
    rope: { layout: v21 ? 'interleaved' : 'tiled', theta: 10000, interpolate: false, refGrid: null },
    outDim: v21 ? 2 * enc.embedDim : enc.embedDim,
    embedInDim: v21 ? 2 * enc.embedDim : enc.embedDim,
    embedMlp: v21,
    projContext: v21,
    modalityVectors: v21,
  };
}

/** A tiny V-JEPA 2-AC predictor for a vjepa2 encoder (forge with `edit: (h) => ({ ...h, pred: tinyAcPredictor(h.enc) })`). */
export function tinyAcPredictor(enc: EncoderHparams, extrinsics = false): PredictorHparams {
  return {
    kind: 'ac',
    embedDim: 64,
    nLayer: 2,
    nHead: 2,
    headDim: 32,
    ffnDim: 128,
    lnEps: f32(1e-6),
    act: 'gelu',
    actionDim: 7,
    stateDim: 7,
    extrinsics,
    condTokens: extrinsics ? 3 : 2,
    frameCausal: true,
    tubeletSize: enc.tubeletSize,
    nFrames: 8,
    maxSteps: 8 / enc.tubeletSize,
    gridSize: enc.gridSize,
    rope: { layout: 'tiled', theta: 10000, interpolate: false, refGrid: null },
  };
}
