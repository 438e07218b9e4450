// The LeJEPA community checkpoint (OK-AI lite_ssl ViTv2, config model_type vitv2) → family hfvit
// (families.md §6.1): `backbone.` + timm names, CLS row first in the learned table.
import { tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { stripPrefixes } from '../readers/state-dict.js';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { ConfigReader } from './config.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor, shortEdgeRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

/** Training-only parts: the masking token, the CVA projector, the SSL heads. */
const IGNORED = [/^mask_token$/, /^cva_module_proj\./, /^head\./, /^projection_head\./];

export const lejepa: Mapping = {
  id: 'lejepa',
  family: 'hfvit',
  license: () => RELEASE_LICENSE.APACHE,
  layout: 'LeJEPA ViTv2 folder (config.json model_type vitv2 + safetensors, backbone.* timm names)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(stripPrefixes(source.checkpoint.tensors, ['backbone.']), IGNORED);
    const k = map.shapeOf('patch_embed.proj.weight');
    const embedDim = c.agree('embed_dim', k[0]!, 'patch_embed.proj.weight');
    const patchSize = c.agree('patch_size', k[3]!, 'patch_embed.proj.weight');
    const nLayer = c.agree('depth', countBlocks(map.source.keys(), /^blocks\.(\d+)\./), 'blocks.*');
    const ffnDim = map.shapeOf('blocks.0.mlp.fc1.weight')[0]!;
    c.agreeRatio('mlp_ratio', embedDim, ffnDim, 'blocks.0.mlp.fc1.weight');
    const nReg = map.has('reg_token') ? map.shapeOf('reg_token')[1]! : 0;
    c.agree('num_register_tokens', nReg, 'reg_token');
    const layerScale = map.has('blocks.0.ls1.gamma');
    if (c.has('init_values') !== layerScale) {
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `config.json: init_values ${JSON.stringify(c.raw('init_values'))} but 'blocks.0.ls1.gamma' is ${layerScale ? 'present' : 'absent'}`,
      );
    }
    const grid = Math.round(Math.sqrt(map.shapeOf('pos_embed')[1]! - 1));
    const imgSize = c.agree('img_size', grid * patchSize, 'pos_embed');

    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    map.copy(tensorNames.encPosEmbed, 'pos_embed', 'rows');
    map.copy(tensorNames.encClsToken, 'cls_token', 'rows');
    if (nReg > 0) map.copy(tensorNames.encRegTokens, 'reg_token', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `blocks.${i}`, layerScale ? { ...TIMM_BLOCK, ls1: 'ls1.gamma', ls2: 'ls2.gamma' } : TIMM_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'norm');

    const enc = encoderHparams('hfvit', {
      embedDim,
      nLayer,
      nHead: c.int('num_heads'),
      ffnDim,
      patchSize,
      imgSize,
      inChans: k[1]!,
      lnEps: Math.fround(1e-6),
      act: 'gelu',
      nReg,
      layerScale,
    });
    const pre = source.preprocessorConfig
      ? recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image')
      : shortEdgeRecipe(256, 224, 'bicubic');
    return { parts: { family: 'hfvit', name: modelName(source), enc, pre }, map, sourceEntry: null, notes: [] };
  },
};
