// HF VJEPA2Model / VJEPA2ForVideoClassification folder → family vjepa2 (families.md §3.3): Conv3d
// tokens, split q/k/v fused here, tiled 3-D RoPE.
import { tensorNames } from '@jepa/gguf';
import { stripPrefixes } from '../readers/state-dict.js';
import { HF_VJEPA2_BLOCK, mapEncoderBlocks, mapNorm, mapPatchEmbed } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { mapHfVjepa2Head, mapHfVjepa2Predictor } from './hf-vjepa2-parts.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor, vjepaRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const IGNORED: RegExp[] = [];

export const hfVjepa2: Mapping = {
  id: 'hf-vjepa2',
  family: 'vjepa2',
  license: () => RELEASE_LICENSE.MIT,
  layout: 'HF VJEPA2Model / VJEPA2ForVideoClassification folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(stripPrefixes(source.checkpoint.tensors, ['vjepa2.']), IGNORED);
    const patch = 'encoder.embeddings.patch_embeddings.proj';
    const k = map.shapeOf(`${patch}.weight`);
    const embedDim = c.agree('hidden_size', k[0]!, `${patch}.weight`);
    const nLayer = c.agree('num_hidden_layers', countBlocks(map.source.keys(), /^encoder\.layer\.(\d+)\./), 'encoder.layer.*');
    const fc1 = `encoder.layer.0.${HF_VJEPA2_BLOCK.fc1}.weight`;
    const ffnDim = map.shapeOf(fc1)[0]!;
    c.agreeRatio('mlp_ratio', embedDim, ffnDim, fc1);
    const patchSize = c.agree('patch_size', k[4]!, `${patch}.weight`);
    const tubeletSize = c.agree('tubelet_size', k[2]!, `${patch}.weight`);
    const imgSize = c.int('crop_size', 256);

    mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
    mapEncoderBlocks(map, nLayer, (i) => `encoder.layer.${i}`, HF_VJEPA2_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'encoder.layernorm');

    const enc = encoderHparams('vjepa2', {
      embedDim,
      nLayer,
      nHead: c.int('num_attention_heads'),
      ffnDim,
      patchSize,
      tubeletSize,
      imgSize,
      nFrames: c.int('frames_per_clip', 64),
      inChans: c.agree('in_chans', k[1]!, `${patch}.weight`),
      lnEps: Math.fround(c.num('layer_norm_eps', 1e-6)),
      act: activationOf(c.str('hidden_act', 'gelu'), 'config.json hidden_act'),
    });
    const pred = mapHfVjepa2Predictor(map, c, enc);
    const { head, labels } = mapHfVjepa2Head(map, c, enc);
    const pre = source.videoPreprocessorConfig
      ? recipeFromHfProcessor(source.videoPreprocessorConfig, 'video_preprocessor_config.json', 'video')
      : vjepaRecipe(imgSize);
    const notes = [
      pred ? 'predictor in the file' : 'no predictor in the file',
      head ? `attentive classifier in the file (${head.nClasses} classes)` : 'no classifier in the file',
    ];
    return { parts: { family: 'vjepa2', name: modelName(source), enc, pred, head, pre, labels }, map, sourceEntry: null, notes };
  },
};
