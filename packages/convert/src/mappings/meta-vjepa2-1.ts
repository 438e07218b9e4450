// Meta V-JEPA 2.1 .pt (app/vjepa_2_1) → family vjepa2_1 (families.md §4): video + image tokenizers,
// modality vectors, interleaved RoPE with interpolation, hierarchy norms instead of a final norm.
import { tensorNames } from '@jepa/gguf';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { ConvertError } from '../errors.js';
import { encoderHparams } from './hparams.js';
import { headsFor, metaEncoderFields, metaWidths, selectMetaEncoder } from './meta-encoder.js';
import { optionalMetaPredictor } from './meta-predictor.js';
import { modelName } from './naming.js';
import { vjepaRecipe } from './preprocess-recipe.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

/** B/L distilled files keep the encoder in `ema_encoder`, g/G in `target_encoder` (families.md §4.2). */
const ENTRIES = ['target_encoder', 'ema_encoder', 'encoder'];

/** Block index after which each hierarchy norm applies, by depth (families.md §4.3). */
const HIER_LAYERS: Record<number, number[]> = { 12: [2, 5, 8, 11], 24: [5, 11, 17, 23], 40: [9, 19, 29, 39], 48: [11, 23, 37, 47] };

/** Every released 2.1 checkpoint: 384 px crops, 64-frame clips, RoPE interpolated to the 256-px grid. */
const TRAINED_IMG = 384;
const TRAINED_FRAMES = 64;
const ROPE_REF_PIXELS = 256;

const IGNORED: RegExp[] = [/^pos_embed$/];

export const metaVjepa21: Mapping = {
  id: 'meta-vjepa2_1',
  family: 'vjepa2_1',
  license: () => RELEASE_LICENSE.MIT,
  layout: 'facebookresearch/vjepa2 app/vjepa_2_1 .pt (torch zip pickle)',
  ignored: IGNORED,
  map(source, overrides) {
    const { entry, map } = selectMetaEncoder(source, ENTRIES, IGNORED, overrides.entry);
    const w = metaWidths(map);
    const heads = headsFor('vjepa2_1', w.embedDim, overrides);
    const nNorms = map.names(/^norms_block\.\d+\.weight$/).length;
    const table = HIER_LAYERS[w.nLayer];
    const notes = heads.note ? [heads.note] : [];

    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    mapPatchEmbed(map, tensorNames.encPatchEmbedImg, 'patch_embed_img.proj');
    map.copy(tensorNames.encImgModEmbed, 'img_mod_embed', 'vec');
    map.copy(tensorNames.encVideoModEmbed, 'video_mod_embed', 'vec');
    mapEncoderBlocks(map, w.nLayer, (i) => `blocks.${i}`, TIMM_BLOCK);

    let hierLayers: number[];
    if (table && nNorms === table.length) {
      hierLayers = table;
      for (let k = 0; k < table.length; k++) mapNorm(map, tensorNames.encHierNorm(k), `norms_block.${k}`);
    } else {
      // A depth without a distillation table: only the inference norm (the last) is meaningful.
      hierLayers = [w.nLayer - 1];
      mapNorm(map, tensorNames.encHierNorm(0), `norms_block.${nNorms - 1}`);
      for (let k = 0; k < nNorms - 1; k++) map.consume(`norms_block.${k}.weight`, `norms_block.${k}.bias`);
      notes.push(
        `depth ${w.nLayer} has no hierarchy table; kept norms_block.${nNorms - 1} (the inference norm) and dropped ${nNorms - 1} training-only norms`,
      );
    }

    const imgSize = overrides.imgSize ?? TRAINED_IMG;
    const enc = encoderHparams('vjepa2_1', {
      ...metaEncoderFields(w, heads.nHead),
      imgSize,
      nFrames: overrides.nFrames ?? TRAINED_FRAMES,
      rope: { layout: 'interleaved', theta: 10000, interpolate: true, refGrid: ROPE_REF_PIXELS / w.patchSize },
      imgTubeletSize: map.shapeOf('patch_embed_img.proj.weight')[2]!,
      hierLayers,
    });
    const predictor = optionalMetaPredictor(source, enc, overrides, 'vjepa2_1', notes);
    const levels = predictor ? predictor.pred.embedInDim / w.embedDim : 1;
    if (levels !== 1 && levels !== hierLayers.length)
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `the predictor reads ${predictor!.pred.embedInDim}-wide tokens (${levels} levels of ${w.embedDim}), but ${table ? `the encoder has ${hierLayers.length} hierarchy norms` : `Meta's encoder defines no hierarchy layers for depth ${w.nLayer} (12, 24, 40, 48 only)`}; --no-predictor converts the encoder alone`,
      );
    return {
      parts: { family: 'vjepa2_1', name: modelName(source), enc, pred: predictor?.pred ?? null, pre: vjepaRecipe(imgSize) },
      map,
      extraMaps: predictor ? [predictor.map] : [],
      sourceEntry: entry,
      notes,
    };
  },
};
