import type { Family } from '../schema/families.js';
import { FAMILY_DEFINITIONS } from '../schema/family/registry.js';
import type { EncoderHparams, HeadHparams, ModelHparams, PredictorHparams, PreprocessSpec } from '../schema/model-spec.js';

const IMAGENET: Pick<PreprocessSpec, 'mean' | 'std'> = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const f32 = Math.fround;

/**
 * Tiny, valid hparams per family: D 32 (so q8_0/q4_0 blocks fit matmul rows), 2 heads, 2 layers, 8×8 pixels in
 * 4×4 patches. Video families have 4 frames; the predictor and head are the family's own kinds.
 */
export function tinyHparams(family: Family, withPredictor: boolean, withHead: boolean): ModelHparams {
  const { traits, tiny } = FAMILY_DEFINITIONS[family];
  const enc = tinyEncoder(family);
  const pred = withPredictor && tiny.predictor ? tiny.predictor(enc) : null;
  const head: HeadHparams | null = !withHead
    ? null
    : traits.head === 'linear'
      ? { kind: 'linear', nClasses: 5, pool: enc.nCls > 0 ? 'first' : 'mean', lnEps: enc.nCls > 0 ? null : f32(1e-5) }
      : {
          kind: 'attentive',
          nClasses: 5,
          depth: tiny.headDepth ?? 1,
          nHead: 2,
          headDim: 16,
          ffnDim: 64,
          lnEps: f32(1e-6),
          act: 'gelu',
        };
  const labels = head ? ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] : null;
  const pre: PreprocessSpec = {
    ...IMAGENET,
    resize: { mode: 'short', size: 9 },
    crop: 8,
    resample: 'bicubic',
    rescale: f32(1 / 255),
    cropRounding: 'round',
    ...tiny.pre,
  };
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

/** The family's encoder defaults at the tiny widths: registers and layer scale wherever the family may have them. */
function tinyEncoder(family: Family): EncoderHparams {
  const { traits, encoder, tiny } = FAMILY_DEFINITIONS[family];
  const e = {
    ...encoder,
    embedDim: 32,
    nLayer: 2,
    nHead: 2,
    headDim: 16,
    ffnDim: 64,
    patchSize: 4,
    tubeletSize: traits.video ? 2 : 1,
    imgSize: 8,
    nFrames: traits.video ? 4 : 1,
    inChans: 3,
    lnEps: f32(1e-6),
    act: 'gelu' as const,
    nReg: traits.registers ? 2 : 0,
    layerScale: traits.layerScale,
    ...tiny.encoder,
  };
  const gridSize = e.imgSize / e.patchSize;
  const gridFrames = e.nFrames / e.tubeletSize;
  return { ...e, gridSize, gridFrames, nPatches: gridFrames * gridSize * gridSize };
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
