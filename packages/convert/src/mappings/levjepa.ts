// LeVJEPA HF folder (remote-code LeVJEPAModel, model_type levjepa) → family levjepa (families.md §7):
// `encoder.` timm names, Conv3d 1×P×P tokens, CLS, tiled 3-D RoPE, block-causal attention.
import { tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { ConfigReader } from './config.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor, shortEdgeRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const IGNORED: RegExp[] = [];

export const levjepa: Mapping = {
  id: 'levjepa',
  family: 'levjepa',
  license: () => RELEASE_LICENSE.CC_BY_NC,
  layout: 'LeVJEPA HF folder (config.json model_type levjepa + safetensors, encoder.* names)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(source.checkpoint.tensors, IGNORED);
    const patch = 'encoder.patch_embed.proj';
    const k = map.shapeOf(`${patch}.weight`);
    const embedDim = c.agree('embed_dim', k[0]!, `${patch}.weight`);
    const nLayer = c.agree('depth', countBlocks(map.source.keys(), /^encoder\.blocks\.(\d+)\./), 'encoder.blocks.*');
    const fc1 = 'encoder.blocks.0.mlp.fc1.weight';
    const ffnDim = map.shapeOf(fc1)[0]!;
    c.agreeRatio('mlp_ratio', embedDim, ffnDim, fc1);
    if (!c.bool('use_rope', true))
      throw new ConvertError('CONVERT_BAD_CONFIG', 'config.json: use_rope=false LeVJEPA has no position scheme in schema v1');
    const attnMode = c.str('attn_mode', 'block_causal');
    if (attnMode !== 'block_causal' && attnMode !== 'full')
      throw new ConvertError('CONVERT_BAD_CONFIG', `config.json: attn_mode '${attnMode}' is not block_causal or full`);

    mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
    map.copy(tensorNames.encClsToken, 'encoder.cls_token', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `encoder.blocks.${i}`, TIMM_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'encoder.norm');

    const imgSize = c.int('img_size', 224);
    const enc = encoderHparams('levjepa', {
      embedDim,
      nLayer,
      nHead: c.int('num_heads'),
      ffnDim,
      patchSize: c.agree('patch_size', k[4]!, `${patch}.weight`),
      tubeletSize: c.agree('tubelet_size', k[2]!, `${patch}.weight`),
      imgSize,
      nFrames: c.int('num_frames', 16),
      inChans: c.agree('in_chans', k[1]!, `${patch}.weight`),
      lnEps: Math.fround(1e-6),
      act: 'gelu',
      attnMode,
    });
    // Model card: short side 224 bicubic, centre crop 224, ImageNet statistics (no preprocessor_config in the repo).
    const pre = source.preprocessorConfig
      ? recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image')
      : shortEdgeRecipe(imgSize, imgSize, 'bicubic');
    return { parts: { family: 'levjepa', name: modelName(source), enc, pre }, map, sourceEntry: null, notes: [] };
  },
};
