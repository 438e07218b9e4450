// LeWorldModel `weights.pt` + `config.json` (families.md §6.2-6.3). The encoder is an HF ViTModel under
// `encoder.`. A file with the world-model parts becomes a lewm model (action predictor, projectors with
// BatchNorm folded); an encoder-only file becomes an hfvit model, its projector dropped (schema v1 keeps
// the projector only inside a lewm model, whose action predictor is required).
import { ConvertError } from '../errors.js';
import type { Json } from '../source.js';
import { HF_VIT_BLOCK } from './blocks.js';
import { ConfigReader } from './config.js';
import { encoderHparams } from './hparams.js';
import { mapHfVitEncoder } from './hf-vit.js';
import { hasActionPredictor, mapLewmPredictor } from './lewm-predictor.js';
import { modelName } from './naming.js';
import { shortEdgeRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

/** stable_pretraining vit_hf sizes (HF ViT conventions). */
const VIT_SIZES: Record<string, Json> = {
  tiny: { hidden_size: 192, num_hidden_layers: 12, num_attention_heads: 3, intermediate_size: 768 },
  small: { hidden_size: 384, num_hidden_layers: 12, num_attention_heads: 6, intermediate_size: 1536 },
  base: { hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072 },
};

/** Encoder-only files: the projector is the first stage of the world model, with nowhere to go without it. */
const WORLD_MODEL_PARTS = [/^projector\./, /^pred_proj\./];
/** A full file converted with --no-predictor: the action predictor and its embedding go with the projectors. */
const PREDICTOR_PARTS = [...WORLD_MODEL_PARTS, /^predictor\./, /^action_encoder\./];

function encoderConfig(config: Json | null): ConfigReader {
  const section = new ConfigReader(config ?? {}, 'config.json').section('encoder');
  if (!section) throw new ConvertError('CONVERT_BAD_CONFIG', "config.json: no 'encoder' section (LeWM configs name the ViT size there)");
  const size = section.str('size', 'tiny');
  const known = VIT_SIZES[size];
  const spelled = section.has('hidden_size');
  if (!known && !spelled)
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `config.json: encoder size '${size}' is not one of ${Object.keys(VIT_SIZES).join(', ')} and its widths are not spelled out`,
    );
  const merged: Json = { ...(known ?? {}) };
  for (const key of ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size', 'patch_size', 'image_size', 'layer_norm_eps']) {
    const v = section.raw(key);
    if (v !== undefined) merged[key] = v;
  }
  return new ConfigReader(merged, 'config.json encoder');
}

export const lewm: Mapping = {
  id: 'lewm',
  family: 'lewm',
  license: () => RELEASE_LICENSE.MIT,
  layout: 'LeWM weights.pt (encoder.* HF ViT names, projector / predictor / action_encoder / pred_proj) + config.json',
  ignored: WORLD_MODEL_PARTS,
  familyFor(source) {
    return hasActionPredictor(new TensorMap(source.checkpoint.tensors, [])) ? 'lewm' : 'hfvit';
  },
  map(source, overrides) {
    const probe = new TensorMap(source.checkpoint.tensors, []);
    const present = hasActionPredictor(probe);
    const full = present && !overrides.noPredictor;
    const map = full ? probe : new TensorMap(source.checkpoint.tensors, present ? PREDICTOR_PARTS : WORLD_MODEL_PARTS);
    const enc = encoderHparams(
      full ? 'lewm' : 'hfvit',
      mapHfVitEncoder(map, { prefix: 'encoder.', block: HF_VIT_BLOCK, config: encoderConfig(source.config), registers: false }),
    );
    // le-wm: ToTensor → ImageNet normalise → Resize(224); the environments render at the trained size.
    const pre = shortEdgeRecipe(enc.imgSize, enc.imgSize, 'bilinear');
    const name = modelName(source);
    if (full) {
      const pred = mapLewmPredictor(map, new ConfigReader(source.config ?? {}, 'config.json').section('predictor'));
      return {
        parts: { family: 'lewm', name, enc, pred, pre },
        map,
        sourceEntry: null,
        notes: ['BatchNorm of projector and pred_proj folded into their first Linear'],
      };
    }
    const notes = [
      present
        ? 'action predictor left out (--no-predictor): the encoder alone is converted (family hfvit); the projector is dropped'
        : 'no action predictor in the file: the encoder alone is converted (family hfvit); the projector is dropped',
    ];
    return { parts: { family: 'hfvit', name, enc, pre }, map, sourceEntry: null, notes };
  },
};
