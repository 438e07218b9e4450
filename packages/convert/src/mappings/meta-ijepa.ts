// Meta I-JEPA .pth.tar → family ijepa (families.md §1.3): the `encoder` entry (the one HF converted,
// and the context encoder the predictor was trained on), Conv2d tokens and the stored 2-D sincos
// table; the `predictor` entry when the file has one.
import { tensorNames } from '@jepa/gguf';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { encoderHparams } from './hparams.js';
import { headsFor, metaEncoderFields, metaWidths, selectMetaEncoder } from './meta-encoder.js';
import { optionalMetaTablePredictor } from './meta-table-predictor.js';
import { modelName } from './naming.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const ENTRIES = ['encoder', 'target_encoder'];
const IGNORED: RegExp[] = [];

export const metaIjepa: Mapping = {
  id: 'meta-ijepa',
  family: 'ijepa',
  license: () => RELEASE_LICENSE.CC_BY_NC,
  layout: 'facebookresearch/ijepa .pth.tar (torch zip pickle)',
  ignored: IGNORED,
  map(source, overrides) {
    const { entry, map } = selectMetaEncoder(source, ENTRIES, IGNORED, overrides.entry);
    const w = metaWidths(map);
    const heads = headsFor('ijepa', w.embedDim, overrides);
    const imgSize = Math.round(Math.sqrt(map.shapeOf('pos_embed')[1]!)) * w.patchSize;
    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    map.copy(tensorNames.encPosEmbed, 'pos_embed', 'rows');
    mapEncoderBlocks(map, w.nLayer, (i) => `blocks.${i}`, TIMM_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'norm');
    const enc = encoderHparams('ijepa', { ...metaEncoderFields(w, heads.nHead), imgSize });
    // The HF port's recipe (families.md §1.5): squash to the trained size, mean = std = 0.5.
    const pre = {
      mean: [0.5, 0.5, 0.5],
      std: [0.5, 0.5, 0.5],
      resize: { mode: 'squash' as const, size: imgSize },
      crop: imgSize,
      resample: 'bilinear' as const,
      rescale: Math.fround(1 / 255),
      cropRounding: 'floor' as const,
    };
    const notes = heads.note ? [heads.note] : [];
    const predictor = optionalMetaTablePredictor(source, enc, overrides, notes);
    if (predictor && entry !== 'encoder') notes.push(`the predictor was trained on the 'encoder' entry's context features, not '${entry}'`);
    return {
      parts: { family: 'ijepa', name: modelName(source), enc, pred: predictor?.pred ?? null, pre },
      map,
      extraMaps: predictor ? [predictor.map] : [],
      sourceEntry: entry,
      notes,
    };
  },
};
