// HF Dinov2Model / Dinov2WithRegistersModel / ViTModel folders → family hfvit (families.md §5).
import { tensorNames, type PreprocessSpec } from '@jepa/gguf';
import { stripPrefixes } from '../readers/state-dict.js';
import type { Source } from '../source.js';
import { HF_DINOV2_BLOCK, HF_VIT_BLOCK, mapEncoderBlocks, mapNorm, mapPatchEmbed, type BlockNames } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { countBlocks, encoderHparams, type EncoderFields } from './hparams.js';
import { hfBlockVariant, swigluWidthOf } from './hf-vit-variants.js';
import { recipeFromHfProcessor, shortEdgeRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping, MappedModel, Tensors } from './types.js';
import { modelName } from './naming.js';
import { RELEASE_LICENSE } from './release-license.js';

export const HF_VIT_MODEL_TYPES = ['dinov2', 'dinov2_with_registers', 'vit'] as const;

/** Wrapper prefixes of the *ForImageClassification classes; their classifier heads are not in schema v1. */
const WRAPPER_PREFIXES = ['dinov2.', 'dinov2_with_registers.', 'vit.'];

const IGNORED = [
  /^embeddings\.mask_token$/, // masked-image-modelling only
  /^classifier\./, // DINOv2 / ViT linear heads: not in schema v1
  /^pooler\./, // ViT pooler (tanh dense): the reference pools the CLS after the final norm
];

export interface HfVitEncoderSpec {
  /** Prefix of the encoder's names in the state dict ('' or 'encoder.' for LeWM). */
  prefix: string;
  block: BlockNames;
  config: ConfigReader;
  /** Register tokens expected (DINOv2 with registers). */
  registers: boolean;
}

/** Maps an HF ViT-style encoder (CLS + learned table) into `map`, returning its encoder fields. */
export function mapHfVitEncoder(map: TensorMap, s: HfVitEncoderSpec): EncoderFields {
  const c = s.config;
  const p = s.prefix;
  const blockPrefix = (i: number) => `${p}encoder.layer.${i}`;
  const patch = `${p}embeddings.patch_embeddings.projection`;
  const patchShape = map.shapeOf(`${patch}.weight`);
  const embedDim = c.agree('hidden_size', patchShape[0]!, `${patch}.weight`);
  const nLayer = c.agree(
    'num_hidden_layers',
    countBlocks(map.source.keys(), new RegExp(`^${p.replace(/\./g, '\\.')}encoder\\.layer\\.(\\d+)\\.`)),
    `${p}encoder.layer.*`,
  );
  const variant = hfBlockVariant(map, c, s.block, blockPrefix(0));
  const ffnDim = variant.swiglu
    ? swigluWidthOf(map, c, embedDim, `${blockPrefix(0)}.${s.block.swigluIn}.weight`)
    : mlpWidthOf(map, c, embedDim, `${blockPrefix(0)}.${s.block.fc1}.weight`);
  const patchSize = c.agree('patch_size', patchShape[3]!, `${patch}.weight`);
  const inChans = c.agree('num_channels', patchShape[1]!, `${patch}.weight`);
  const posShape = map.shapeOf(`${p}embeddings.position_embeddings`);
  const gridFromTable = Math.round(Math.sqrt(posShape[1]! - 1));
  const imgSize = c.agree('image_size', gridFromTable * patchSize, `${p}embeddings.position_embeddings`);
  const nReg = s.registers ? map.shapeOf(`${p}embeddings.register_tokens`)[1]! : 0;
  if (s.registers) c.agree('num_register_tokens', nReg, `${p}embeddings.register_tokens`);
  const layerScale = s.block.ls1 !== undefined;

  mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
  map.copy(tensorNames.encPosEmbed, `${p}embeddings.position_embeddings`, 'rows');
  map.copy(tensorNames.encClsToken, `${p}embeddings.cls_token`, 'rows');
  if (s.registers) map.copy(tensorNames.encRegTokens, `${p}embeddings.register_tokens`, 'rows');
  mapEncoderBlocks(map, nLayer, blockPrefix, s.block, variant);
  mapNorm(map, tensorNames.encNorm, `${p}layernorm`);

  return {
    embedDim,
    nLayer,
    nHead: c.int('num_attention_heads'),
    ffnDim,
    patchSize,
    imgSize,
    inChans,
    lnEps: Math.fround(c.num('layer_norm_eps', 1e-12)),
    // Dinov2SwiGLUFFN gates with SiLU whatever hidden_act says
    act: variant.swiglu ? 'silu' : activationOf(c.str('hidden_act', 'gelu'), 'config.json hidden_act'),
    nReg,
    layerScale,
    ffnKind: variant.swiglu ? 'swiglu' : 'mlp',
    qkvBias: variant.qkvBias,
  };
}

function mlpWidthOf(map: TensorMap, c: ConfigReader, embedDim: number, fc1: string): number {
  const ffnDim = map.shapeOf(fc1)[0]!;
  if (c.has('intermediate_size')) c.agree('intermediate_size', ffnDim, fc1);
  else c.agreeRatio('mlp_ratio', embedDim, ffnDim, fc1);
  return ffnDim;
}

function recipe(source: Source, modelType: string): PreprocessSpec {
  if (source.preprocessorConfig) return recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image');
  // DINOv2's BitImageProcessor default; plain ViT's ViTImageProcessor squashes to 224 with mean = std = 0.5
  if (modelType === 'vit') {
    return {
      ...shortEdgeRecipe(224, 224, 'bilinear'),
      resize: { mode: 'squash', size: 224 },
      mean: [0.5, 0.5, 0.5],
      std: [0.5, 0.5, 0.5],
      cropRounding: 'floor',
    };
  }
  return { ...shortEdgeRecipe(256, 224, 'bicubic'), cropRounding: 'floor' };
}

export const hfVit: Mapping = {
  id: 'hf-vit',
  family: 'hfvit',
  // DINOv2's weights are Apache 2.0; a plain ViTModel folder may hold anyone's weights
  license: (source) => (String(source.config?.model_type).startsWith('dinov2') ? RELEASE_LICENSE.APACHE : null),
  layout: 'HF Dinov2Model / Dinov2WithRegistersModel / ViTModel folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source): MappedModel {
    const config = new ConfigReader(source.config ?? {}, 'config.json');
    const modelType = config.str('model_type');
    const tensors: Tensors = stripPrefixes(source.checkpoint.tensors, WRAPPER_PREFIXES);
    const map = new TensorMap(tensors, IGNORED);
    const registers = modelType === 'dinov2_with_registers';
    const block = modelType === 'vit' ? HF_VIT_BLOCK : HF_DINOV2_BLOCK;
    const enc = mapHfVitEncoder(map, { prefix: '', block, config, registers });
    return {
      parts: { family: 'hfvit', name: modelName(source), enc: encoderHparams('hfvit', enc), pre: recipe(source, modelType) },
      map,
      sourceEntry: null,
      notes: [],
    };
  },
};
