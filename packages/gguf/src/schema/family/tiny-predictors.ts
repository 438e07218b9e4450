// The predictors of the forge's tiny models (see TinyRecipe.predictor), sized to the tiny encoder.
import type { ActionPredictorHparams, EncoderHparams, MaskedPredictorHparams } from '../model-spec.js';

const f32 = Math.fround;

/** LeWorldModel's action-conditioned predictor over 3 frames. */
export function tinyActionPredictor(): ActionPredictorHparams {
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

/** The masked predictor with 3-D RoPE: V-JEPA 2's, or with `v21` V-JEPA 2.1's (2 mask tokens, twice the width out, embed MLP, modality vectors). */
export function tinyRopePredictor(enc: EncoderHparams, v21: boolean): MaskedPredictorHparams {
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
