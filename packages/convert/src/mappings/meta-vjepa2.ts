// Meta V-JEPA 2 .pt → family vjepa2 (families.md §3.2): the encoder from `target_encoder` (Meta's evals;
// falling back to `encoder`), Conv3d tokens, tiled 3-D RoPE. The stored pos_embed is unused by the model.
import { tensorNames, type EncoderHparams } from '@jepa/gguf';
import type { Source } from '../source.js';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { encoderHparams } from './hparams.js';
import { headsFor, metaEncoderFields, metaWidths, selectMetaEncoder } from './meta-encoder.js';
import { optionalMetaPredictor } from './meta-predictor.js';
import { modelName } from './naming.js';
import { vjepaRecipe } from './preprocess-recipe.js';
import type { TensorMap } from './tensor-map.js';
import type { ArchOverrides, Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const ENTRIES = ['target_encoder', 'encoder'];
export const VJEPA2_ENCODER_IGNORED = [/^pos_embed$/];
/** vitl/vith/vitg.pt: 256 px, 64-frame clips (vitg-384.pt needs --img-size 384). */
const RELEASED_IMG = 256;
const RELEASED_FRAMES = 64;

export interface MappedVjepa2Encoder {
  entry: string;
  map: TensorMap;
  enc: EncoderHparams;
  imgSize: number;
  notes: string[];
}

/** The V-JEPA 2 ViT of a Meta pickle (also the encoder of a V-JEPA 2-AC file), from the first of `entries` or `--entry`. */
export function mapMetaVjepa2Encoder(source: Source, overrides: ArchOverrides, entries: readonly string[]): MappedVjepa2Encoder {
  const { entry, map } = selectMetaEncoder(source, entries, VJEPA2_ENCODER_IGNORED, overrides.entry);
  const w = metaWidths(map);
  const heads = headsFor('vjepa2', w.embedDim, overrides);
  mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
  mapEncoderBlocks(map, w.nLayer, (i) => `blocks.${i}`, TIMM_BLOCK);
  mapNorm(map, tensorNames.encNorm, 'norm');
  const imgSize = overrides.imgSize ?? RELEASED_IMG;
  const enc = encoderHparams('vjepa2', { ...metaEncoderFields(w, heads.nHead), imgSize, nFrames: overrides.nFrames ?? RELEASED_FRAMES });
  const notes = heads.note ? [heads.note] : [];
  if (overrides.imgSize === undefined) notes.push(`trained size assumed ${RELEASED_IMG} px (the .pt does not record it)`);
  return { entry, map, enc, imgSize, notes };
}

export const metaVjepa2: Mapping = {
  id: 'meta-vjepa2',
  family: 'vjepa2',
  license: () => RELEASE_LICENSE.MIT,
  layout: 'facebookresearch/vjepa2 .pt (torch zip pickle)',
  ignored: VJEPA2_ENCODER_IGNORED,
  map(source, overrides) {
    const { entry, map, enc, imgSize, notes } = mapMetaVjepa2Encoder(source, overrides, ENTRIES);
    const predictor = optionalMetaPredictor(source, enc, overrides, 'vjepa2', notes);
    return {
      parts: { family: 'vjepa2', name: modelName(source), enc, pred: predictor?.pred ?? null, pre: vjepaRecipe(imgSize) },
      map,
      extraMaps: predictor ? [predictor.map] : [],
      sourceEntry: entry,
      notes,
    };
  },
};
