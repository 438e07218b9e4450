// facebookresearch/dinov2 torch.hub files (dinov2_vit{s,b,l,g}14[_reg4]_pretrain.pth: torch.save of a bare
// state dict in the repository's names) → family hfvit, in the same GGUF layout as the HF DINOv2 folders.
import { tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { Source } from '../source.js';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK, type BlockNames } from './blocks.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { shortEdgeRecipe } from './preprocess-recipe.js';
import { RELEASE_LICENSE } from './release-license.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';

/** Masked-image-modelling only: the encoder never reads it. */
const IGNORED = [/^mask_token$/];

/** The names every hub file has at its root, and no Meta pickle (those nest them under an entry). */
const HUB_ROOT_NAMES = ['cls_token', 'pos_embed', 'patch_embed.proj.weight', 'norm.weight'];

/** Heads of the released backbones by width (hub/backbones.py: vit_small, vit_base, vit_large, vit_giant2). */
const RELEASED_HEADS: Record<number, number> = { 384: 6, 768: 12, 1024: 16, 1536: 24 };

/**
 * DinoVisionTransformer's interpolate_offset as the hub builders set it: 0.1 for the first release, 0 for the
 * models with registers (which also resize with antialias, as the engine does for any model with registers).
 */
const OFFSET_WITHOUT_REGISTERS = 0.1;

const HUB_BLOCK: BlockNames = { ...TIMM_BLOCK, ls1: 'ls1.gamma', ls2: 'ls2.gamma', swigluIn: 'mlp.w12', swigluOut: 'mlp.w3' };

export function isDinov2Hub(source: Source): boolean {
  const names = source.checkpoint.tensors;
  return source.checkpoint.format === 'torch-zip' && HUB_ROOT_NAMES.every((n) => names.has(n)) && names.has('blocks.0.attn.qkv.weight');
}

function headsOf(embedDim: number, nHead: number | undefined): { nHead: number; note: string | null } {
  if (nHead !== undefined) return { nHead, note: null };
  const known = RELEASED_HEADS[embedDim];
  if (known === undefined) {
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `a dinov2 torch.hub file records no head count, and width ${embedDim} is none of the released ${Object.keys(RELEASED_HEADS).join(', ')}; give it (--n-head)`,
    );
  }
  return { nHead: known, note: `${known} heads: the released DINOv2 backbone of width ${embedDim}` };
}

/** The SwiGLU gated width h from `mlp.w12` [2h, D] (SwiGLUFFNFused rounds it; the tensor is the record). */
function swigluWidth(map: TensorMap, name: string): number {
  const [rows] = map.matrixShape(name);
  if (rows % 2 !== 0)
    throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'${name}' has ${rows} rows; the SwiGLU in-projection stacks x1; x2, so an even count`);
  return rows / 2;
}

export const dinov2Hub: Mapping = {
  id: 'dinov2-hub',
  family: 'hfvit',
  layout: 'facebookresearch/dinov2 torch.hub .pth (torch zip pickle of the bare state dict)',
  license: () => RELEASE_LICENSE.APACHE,
  ignored: IGNORED,
  map(source, overrides) {
    const map = new TensorMap(source.checkpoint.tensors, IGNORED);
    const k = map.shapeOf('patch_embed.proj.weight');
    if (k.length !== 4)
      throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'patch_embed.proj.weight' is [${k.join(', ')}]; a dinov2 hub file has a Conv2d [D, C, P, P]`);
    const [embedDim, inChans, , patchSize] = k as [number, number, number, number];
    const nLayer = countBlocks(map.source.keys(), /^blocks\.(\d+)\./);
    const swiglu = map.has('blocks.0.mlp.w12.weight');
    const ffnDim = swiglu ? swigluWidth(map, 'blocks.0.mlp.w12.weight') : map.shapeOf('blocks.0.mlp.fc1.weight')[0]!;
    const layerScale = map.has('blocks.0.ls1.gamma');
    const nReg = map.has('register_tokens') ? map.shapeOf('register_tokens')[1]! : 0;
    const tableRows = map.shapeOf('pos_embed')[1]! - 1;
    const side = Math.round(Math.sqrt(tableRows));
    if (side * side !== tableRows)
      throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'pos_embed' has ${tableRows} patch rows after the CLS row, not a square grid`);
    const heads = headsOf(embedDim, overrides.nHead);

    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    map.copy(tensorNames.encPosEmbed, 'pos_embed', 'rows');
    map.copy(tensorNames.encClsToken, 'cls_token', 'rows');
    if (nReg > 0) map.copy(tensorNames.encRegTokens, 'register_tokens', 'rows');
    const names = layerScale ? HUB_BLOCK : { ...HUB_BLOCK, ls1: undefined, ls2: undefined };
    mapEncoderBlocks(map, nLayer, (i) => `blocks.${i}`, names, { swiglu, qkvBias: true });
    mapNorm(map, tensorNames.encNorm, 'norm');

    const enc = encoderHparams('hfvit', {
      embedDim,
      nLayer,
      nHead: heads.nHead,
      ffnDim,
      patchSize,
      imgSize: side * patchSize,
      inChans,
      lnEps: Math.fround(1e-6),
      act: swiglu ? 'silu' : 'gelu',
      nReg,
      layerScale,
      ffnKind: swiglu ? 'swiglu' : 'mlp',
      posInterpOffset: nReg > 0 ? 0 : Math.fround(OFFSET_WITHOUT_REGISTERS),
    });
    // dinov2/data/transforms.py make_classification_eval_transform: Resize(256, bicubic), CenterCrop(224)
    const pre = shortEdgeRecipe(256, 224, 'bicubic');
    return {
      parts: { family: 'hfvit', name: modelName(source), enc, pre },
      map,
      sourceEntry: null,
      notes: heads.note ? [heads.note] : [],
    };
  },
};
