// HF VideoMAEModel / VideoMAEForVideoClassification folder → family videomae: Conv3d tubelets, the
// 1-D sinusoid table (not stored: baked here), q and v biases with none on k, and with use_mean_pooling
// no final norm and a head of fc_norm (nn.LayerNorm's default eps, not the config's) on the token mean.
import { tensorNames, type LinearHeadHparams, type PreprocessSpec } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { stripPrefixes } from '../readers/state-dict.js';
import type { Source } from '../source.js';
import { HF_VIT_BLOCK, mapEncoderBlocks, mapLinear, mapNorm, mapPatchEmbed } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { labelsOf } from './hf-vjepa2-parts.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { IMAGENET_MEAN, IMAGENET_STD, recipeFromHfProcessor } from './preprocess-recipe.js';
import { sincos1dTable } from './sincos1d.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';

const IGNORED: RegExp[] = [];
/** nn.LayerNorm(hidden_size) in VideoMAEForVideoClassification: torch's default eps. */
const FC_NORM_EPS = Math.fround(1e-5);

/** VideoMAEImageProcessor's defaults: shortest edge 224 (Pillow bilinear), centre crop 224, 1/255, ImageNet. */
function recipe(source: Source): PreprocessSpec {
  if (source.preprocessorConfig) return recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image');
  return {
    mean: IMAGENET_MEAN.map(Math.fround),
    std: IMAGENET_STD.map(Math.fround),
    resize: { mode: 'short', size: 224 },
    crop: 224,
    resample: 'bilinear',
    rescale: Math.fround(1 / 255),
    cropRounding: 'floor',
  };
}

export const hfVideomae: Mapping = {
  id: 'hf-videomae',
  family: 'videomae',
  layout: 'HF VideoMAEModel / VideoMAEForVideoClassification folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const tensors = source.checkpoint.tensors;
    if (tensors.has('encoder_to_decoder.weight') || [...tensors.keys()].some((n) => n.startsWith('decoder.')))
      throw new ConvertError(
        'CONVERT_UNKNOWN_FAMILY',
        'VideoMAEForPreTraining: the pixel-reconstruction decoder is not in schema v1; convert a VideoMAEModel or VideoMAEForVideoClassification folder',
      );
    const map = new TensorMap(stripPrefixes(tensors, ['videomae.']), IGNORED);
    const patch = 'embeddings.patch_embeddings.projection';
    const k = map.shapeOf(`${patch}.weight`);
    if (k.length !== 5) throw new ConvertError('CONVERT_SHAPE_MISMATCH', `${patch}.weight is [${k.join(', ')}], not a Conv3d kernel`);
    const embedDim = c.agree('hidden_size', k[0]!, `${patch}.weight`);
    const nLayer = c.agree('num_hidden_layers', countBlocks(map.source.keys(), /^encoder\.layer\.(\d+)\./), 'encoder.layer.*');
    const fc1 = `encoder.layer.0.${HF_VIT_BLOCK.fc1}.weight`;
    const ffnDim = c.agree('intermediate_size', map.shapeOf(fc1)[0]!, fc1);
    const patchSize = c.agree('patch_size', k[4]!, `${patch}.weight`);
    const meanPooling = c.bool('use_mean_pooling', true);

    mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
    // split q/k/v weights fused as every HF ViT's; the bias is q_bias; zeros (HF's k_bias); v_bias
    mapEncoderBlocks(map, nLayer, (i) => `encoder.layer.${i}`, HF_VIT_BLOCK, { qkvBias: false });
    for (let i = 0; i < nLayer; i++) {
      const src = `encoder.layer.${i}.attention.attention`;
      const biases = c.bool('qkv_bias', true) ? [`${src}.q_bias`, `${src}.v_bias`] : [];
      map.derive(`${tensorNames.encBlock(i)}.attn.qkv.bias`, [3 * embedDim], biases, ([q, v]) => {
        const out = new Float32Array(3 * embedDim);
        if (q && v) {
          out.set(q, 0);
          out.set(v, 2 * embedDim);
        }
        return out;
      });
    }
    if (!meanPooling) mapNorm(map, tensorNames.encNorm, 'layernorm');

    const enc = encoderHparams('videomae', {
      embedDim,
      nLayer,
      nHead: c.int('num_attention_heads'),
      ffnDim,
      patchSize,
      tubeletSize: c.agree('tubelet_size', k[2]!, `${patch}.weight`),
      imgSize: c.int('image_size', 224),
      nFrames: c.int('num_frames', 16),
      inChans: c.agree('num_channels', k[1]!, `${patch}.weight`),
      lnEps: Math.fround(c.num('layer_norm_eps', 1e-12)),
      act: activationOf(c.str('hidden_act', 'gelu'), 'config.json hidden_act'),
      finalNorm: !meanPooling,
    });
    map.derive(tensorNames.encPosEmbed, [embedDim, enc.nPatches], [], () => sincos1dTable(enc.nPatches, embedDim));

    let head: LinearHeadHparams | null = null;
    let labels: string[] | null = null;
    if (map.has('classifier.weight')) {
      const nClasses = map.matrixShape('classifier.weight')[0];
      if (meanPooling) mapNorm(map, 'head.fc_norm', 'fc_norm');
      mapLinear(map, 'head.cls', 'classifier');
      head = { kind: 'linear', nClasses, pool: meanPooling ? 'mean' : 'first', lnEps: meanPooling ? FC_NORM_EPS : null };
      labels = labelsOf(c, nClasses);
    }
    const notes = [
      meanPooling ? 'use_mean_pooling: no final norm; the head normalises the token mean (fc_norm, eps 1e-5)' : 'final norm; the head reads token 0',
      head ? `linear classifier in the file (${head.nClasses} classes${labels ? ', labels from id2label' : ''})` : 'no classifier in the file',
    ];
    return { parts: { family: 'videomae', name: modelName(source), enc, head, pre: recipe(source), labels }, map, sourceEntry: null, notes };
  },
};
