// HF VivitModel / VivitForVideoClassification folder → family vivit: Conv3d tubelets (config
// tubelet_size [t, p, p]), CLS and a learned table of N + 1 rows, gelu_fast (the tanh GELU), final
// norm, a Linear on the CLS. Its processor rescales by 1/127.5, subtracts 1, then normalises again
// with mean = std = 0.5 (jepa.pre.offset).
import { tensorNames, type LinearHeadHparams, type PreprocessSpec } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { stripPrefixes } from '../readers/state-dict.js';
import type { Source } from '../source.js';
import { HF_VIT_BLOCK, mapEncoderBlocks, mapLinear, mapNorm, mapPatchEmbed } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { labelsOf } from './hf-vjepa2-parts.js';
import { countBlocks, encoderHparams } from './hparams.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';

const IGNORED = [/^pooler\./]; // VivitModel's tanh pooler: the classifier reads the CLS after the final norm

/** VivitImageProcessor: shortest edge 256, crop 224, bilinear, 1/127.5 with offset, then mean = std = 0.5. */
function recipe(source: Source): PreprocessSpec {
  const json = source.preprocessorConfig;
  if (json) {
    const r = recipeFromHfProcessor(json, 'preprocessor_config.json', 'image');
    // VivitImageProcessor's `offset` defaults to true; it applies only with the rescale
    const c = new ConfigReader(json, 'preprocessor_config.json');
    const offset = c.bool('offset', true) && c.bool('do_rescale', true);
    return offset ? { ...r, offset: -1 } : r;
  }
  const half = [0.5, 0.5, 0.5].map(Math.fround);
  return {
    mean: half,
    std: half,
    resize: { mode: 'short', size: 256 },
    crop: 224,
    resample: 'bilinear',
    rescale: Math.fround(1 / 127.5),
    offset: -1,
    cropRounding: 'floor',
  };
}

function tubeletOf(c: ConfigReader): [number, number, number] {
  const t = c.raw('tubelet_size') ?? [2, 16, 16];
  if (!Array.isArray(t) || t.length !== 3 || !t.every((v) => Number.isInteger(v) && v > 0) || t[1] !== t[2])
    throw new ConvertError('CONVERT_BAD_CONFIG', `config.json: tubelet_size ${JSON.stringify(t)} is not [frames, patch, patch]`);
  return [t[0], t[1], t[2]];
}

export const hfVivit: Mapping = {
  id: 'hf-vivit',
  family: 'vivit',
  layout: 'HF VivitModel / VivitForVideoClassification folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(stripPrefixes(source.checkpoint.tensors, ['vivit.']), IGNORED);
    const patch = 'embeddings.patch_embeddings.projection';
    const k = map.shapeOf(`${patch}.weight`);
    if (k.length !== 5) throw new ConvertError('CONVERT_SHAPE_MISMATCH', `${patch}.weight is [${k.join(', ')}], not a Conv3d kernel`);
    const [tubelet, p] = tubeletOf(c);
    const embedDim = c.agree('hidden_size', k[0]!, `${patch}.weight`);
    const nLayer = c.agree('num_hidden_layers', countBlocks(map.source.keys(), /^encoder\.layer\.(\d+)\./), 'encoder.layer.*');
    const fc1 = `encoder.layer.0.${HF_VIT_BLOCK.fc1}.weight`;
    const ffnDim = c.agree('intermediate_size', map.shapeOf(fc1)[0]!, fc1);
    if (k[2] !== tubelet || k[4] !== p)
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `config.json: tubelet_size [${tubelet}, ${p}, ${p}] disagrees with ${patch}.weight [${k.join(', ')}]`,
      );
    const qkvBias = c.bool('qkv_bias', true);
    if (!qkvBias) throw new ConvertError('CONVERT_BAD_CONFIG', 'config.json: qkv_bias false; the vivit graph always carries the q/k/v biases');

    mapPatchEmbed(map, tensorNames.encPatchEmbed, patch);
    map.copy(tensorNames.encPosEmbed, 'embeddings.position_embeddings', 'rows');
    map.copy(tensorNames.encClsToken, 'embeddings.cls_token', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `encoder.layer.${i}`, HF_VIT_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'layernorm');

    const enc = encoderHparams('vivit', {
      embedDim,
      nLayer,
      nHead: c.int('num_attention_heads'),
      ffnDim,
      patchSize: p,
      tubeletSize: tubelet,
      imgSize: c.int('image_size', 224),
      nFrames: c.int('num_frames', 32),
      inChans: c.agree('num_channels', k[1]!, `${patch}.weight`),
      lnEps: Math.fround(c.num('layer_norm_eps', 1e-6)),
      act: activationOf(c.str('hidden_act', 'gelu_fast'), 'config.json hidden_act'),
    });
    const rows = map.shapeOf('embeddings.position_embeddings');
    if (rows[rows.length - 2] !== enc.nPatches + 1)
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `embeddings.position_embeddings has ${rows[rows.length - 2]} rows, not the ${enc.nPatches} + 1 of ${enc.nFrames} frames at ${enc.imgSize} px`,
      );

    let head: LinearHeadHparams | null = null;
    let labels: string[] | null = null;
    if (map.has('classifier.weight')) {
      const nClasses = map.matrixShape('classifier.weight')[0];
      mapLinear(map, 'head.cls', 'classifier');
      head = { kind: 'linear', nClasses, pool: 'first', lnEps: null };
      labels = labelsOf(c, nClasses);
    }
    const notes = [
      head ? `linear classifier on the CLS (${head.nClasses} classes${labels ? ', labels from id2label' : ''})` : 'no classifier in the file',
    ];
    return { parts: { family: 'vivit', name: modelName(source), enc, head, pre: recipe(source), labels }, map, sourceEntry: null, notes };
  },
};
