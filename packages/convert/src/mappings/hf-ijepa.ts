// HF IJepaModel folder → family ijepa (families.md §1.3): ViT names, no CLS, the stored 2-D sincos table.
import { tensorNames } from '@jepa/gguf';
import { stripPrefixes } from '../readers/state-dict.js';
import { HF_VIT_BLOCK, mapEncoderBlocks, mapNorm, mapPatchEmbed } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const IGNORED = [/^classifier\./]; // IJepaForImageClassification's linear head: not in schema v1

/** HF I-JEPA: ViTImageProcessor squash to the image size, mean = std = 0.5 (families.md §1.5). */
const HF_IJEPA_DEFAULT_MEAN = [0.5, 0.5, 0.5];

export const hfIjepa: Mapping = {
  id: 'hf-ijepa',
  family: 'ijepa',
  license: () => RELEASE_LICENSE.CC_BY_NC,
  layout: 'HF IJepaModel folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(stripPrefixes(source.checkpoint.tensors, ['ijepa.']), IGNORED);
    const patch = 'embeddings.patch_embeddings.projection';
    const w = map.shapeOf(`${patch}.weight`);
    const embedDim = c.agree('hidden_size', w[0]!, `${patch}.weight`);
    const patchSize = c.agree('patch_size', w[3]!, `${patch}.weight`);
    const nLayer = c.agree('num_hidden_layers', countBlocks(map.source.keys(), /^encoder\.layer\.(\d+)\./), 'encoder.layer.*');
    const ffnDim = c.agree(
      'intermediate_size',
      map.shapeOf(`encoder.layer.0.${HF_VIT_BLOCK.fc1}.weight`)[0]!,
      `encoder.layer.0.${HF_VIT_BLOCK.fc1}.weight`,
    );
    const grid = Math.round(Math.sqrt(map.shapeOf('embeddings.position_embeddings')[1]!));
    const imgSize = c.agree('image_size', grid * patchSize, 'embeddings.position_embeddings');

    mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
    map.copy(tensorNames.encPosEmbed, 'embeddings.position_embeddings', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `encoder.layer.${i}`, HF_VIT_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'layernorm');

    const pre = source.preprocessorConfig
      ? recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image')
      : {
          mean: HF_IJEPA_DEFAULT_MEAN,
          std: HF_IJEPA_DEFAULT_MEAN,
          resize: { mode: 'squash' as const, size: imgSize },
          crop: imgSize,
          resample: 'bilinear' as const,
          rescale: Math.fround(1 / 255),
          cropRounding: 'floor' as const,
        };
    const enc = encoderHparams('ijepa', {
      embedDim,
      nLayer,
      nHead: c.int('num_attention_heads'),
      ffnDim,
      patchSize,
      imgSize,
      inChans: c.agree('num_channels', w[1]!, `${patch}.weight`),
      lnEps: Math.fround(c.num('layer_norm_eps', 1e-12)),
      act: activationOf(c.str('hidden_act', 'gelu'), 'config.json hidden_act'),
    });
    return { parts: { family: 'ijepa', name: modelName(source), enc, pre }, map, sourceEntry: null, notes: [] };
  },
};
