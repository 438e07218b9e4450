// What DINOv3's two layouts (HF dinov3_vit folders, Meta's torch.hub .pth) share beyond the family's definition
// (@jepa/gguf schema/family/dinov3.ts): the final norm, the q/k rows stored in pair order, the licence and the eval recipe.
import { FAMILY_DEFINITIONS, ropePairOrder, tensorNames, type EncoderHparams, type PreprocessSpec } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { mapNorm } from './blocks.js';
import { encoderHparams, type EncoderFields } from './hparams.js';
import { IMAGENET_MEAN, IMAGENET_STD } from './preprocess-recipe.js';
import type { TensorMap } from './tensor-map.js';

/** The DINOv3 License is not on SPDX's list; HF's model cards name it `dinov3-license`. */
export const DINOV3_LICENSE = 'LicenseRef-dinov3-license';

const f32 = Math.fround;

export type Dinov3Fields = Pick<
  EncoderFields,
  'embedDim' | 'nLayer' | 'nHead' | 'ffnDim' | 'patchSize' | 'imgSize' | 'inChans' | 'lnEps' | 'act' | 'nReg' | 'ffnKind' | 'qkvBias'
> & { ropeBase: number };

function dinov3Encoder(f: Dinov3Fields): EncoderFields {
  const { ropeBase, ...rest } = f;
  if (f.embedDim % f.nHead !== 0 || (f.embedDim / f.nHead) % 4 !== 0)
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `width ${f.embedDim} over ${f.nHead} heads does not give heads whose width is a multiple of 4, as 2-D RoPE needs`,
    );
  const rope = FAMILY_DEFINITIONS.dinov3.encoder.rope!;
  return { ...rest, rope: { ...rope, theta: f32(ropeBase) } };
}

/** A C-order [rows, inner] qkv matrix (or bias, inner 1) with the rows of each q and k head (the first two thirds) in pair order. */
function pairOrderRows(data: Float32Array, dim: number, headDim: number, inner: number): Float32Array {
  const order = ropePairOrder(headDim);
  const out = Float32Array.from(data);
  for (let part = 0; part < 2; part++)
    for (let head = 0; head < dim / headDim; head++) {
      const first = part * dim + head * headDim;
      for (let r = 0; r < headDim; r++) out.set(data.subarray((first + order[r]!) * inner, (first + order[r]! + 1) * inner), (first + r) * inner);
    }
  return out;
}

/** What both layouts end with: the final norm (`norm` in both), the encoder's hparams, and q and k in pair order. */
export function finishDinov3(map: TensorMap, f: Dinov3Fields): EncoderHparams {
  mapNorm(map, tensorNames.encNorm, 'norm');
  const enc = encoderHparams('dinov3', dinov3Encoder(f));
  pairOrderQk(map, enc.nLayer, enc.embedDim, enc.headDim, enc.qkvBias);
  return enc;
}

/** Stores every block's q and k rows (and bias entries) in the pair order dinov3 files use (ropePairOrder). */
function pairOrderQk(map: TensorMap, nLayer: number, dim: number, headDim: number, qkvBias: boolean): void {
  for (let i = 0; i < nLayer; i++) {
    const qkv = `${tensorNames.encBlock(i)}.attn.qkv`;
    map.rewrite(`${qkv}.weight`, (w) => pairOrderRows(w, dim, headDim, dim));
    if (qkvBias) map.rewrite(`${qkv}.bias`, (b) => pairOrderRows(b, dim, headDim, 1));
  }
}

/**
 * dinov3 hub/backbones.py and the HF processor alike: a square resize (antialiased bilinear) with no crop, then the
 * statistics of the weights' data: ImageNet's, or SAT-493M's for the satellite models (the dinov3 README).
 */
export function dinov3Recipe(size: number, satellite: boolean): PreprocessSpec {
  const mean = satellite ? [0.43, 0.411, 0.296] : IMAGENET_MEAN;
  const std = satellite ? [0.213, 0.156, 0.143] : IMAGENET_STD;
  return {
    mean: mean.map(f32),
    std: std.map(f32),
    resize: { mode: 'squash', size },
    crop: size,
    resample: 'bilinear',
    rescale: f32(1 / 255),
    cropRounding: 'floor',
  };
}
