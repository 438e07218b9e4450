// Meta V-JEPA (v1) .pth.tar → family vjepa (families.md §2): Conv3d tokens + the stored 3-D sincos
// table, from `target_encoder` (the eval loaders' choice, falling back to `encoder`); the `predictor`
// entry when the file has one (trained on `encoder` context features: --entry encoder for predict).
import { tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { mapEncoderBlocks, mapNorm, mapPatchEmbed, TIMM_BLOCK } from './blocks.js';
import { encoderHparams } from './hparams.js';
import { headsFor, metaEncoderFields, metaWidths, selectMetaEncoder, type MetaWidths } from './meta-encoder.js';
import { optionalMetaTablePredictor } from './meta-table-predictor.js';
import { matchSincos3dGrid } from './sincos3d.js';
import type { TensorMap } from './tensor-map.js';
import { modelName } from './naming.js';
import { vjepaRecipe } from './preprocess-recipe.js';
import type { ArchOverrides, Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

const ENTRIES = ['target_encoder', 'encoder'];
const RELEASED_FRAMES = 16;
const IGNORED: RegExp[] = [];

/** N = (frames / T) · (img / P)²: the pair from the overrides or the released 16 frames (when the table is not a sincos one). */
function gridFromRows(nRows: number, patch: number, tubelet: number, o: ArchOverrides): { imgSize: number; nFrames: number } {
  const gridT =
    o.nFrames !== undefined ? o.nFrames / tubelet : o.imgSize !== undefined ? nRows / (o.imgSize / patch) ** 2 : RELEASED_FRAMES / tubelet;
  const side = o.imgSize !== undefined ? o.imgSize / patch : Math.sqrt(nRows / gridT);
  if (!Number.isInteger(gridT) || !Number.isInteger(side) || gridT * side * side !== nRows) {
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `pos_embed has ${nRows} rows, which is not (frames/${tubelet})·(img/${patch})² for ${o.nFrames ?? `${RELEASED_FRAMES} frames`}` +
        `${o.imgSize !== undefined ? ` at ${o.imgSize} px` : ''}; give --img-size and --n-frames`,
    );
  }
  return { imgSize: side * patch, nFrames: gridT * tubelet };
}

/** The trained grid: the one whose sincos table is the stored table; overrides must agree with it. */
async function tableGrid(map: TensorMap, w: MetaWidths, o: ArchOverrides): Promise<{ imgSize: number; nFrames: number }> {
  const stored = await map.ref('pos_embed').readAsFloat32();
  const match = matchSincos3dGrid(stored, w.embedDim);
  if (!match) return gridFromRows(stored.length / w.embedDim, w.patchSize, w.tubeletSize, o);
  const found = { imgSize: match.grid * w.patchSize, nFrames: match.gridT * w.tubeletSize };
  if ((o.imgSize !== undefined && o.imgSize !== found.imgSize) || (o.nFrames !== undefined && o.nFrames !== found.nFrames)) {
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `pos_embed is the sincos table of ${found.nFrames} frames at ${found.imgSize} px, not the ${o.nFrames ?? found.nFrames} frames at ${o.imgSize ?? found.imgSize} px given`,
    );
  }
  return found;
}

export const metaVjepa: Mapping = {
  id: 'meta-vjepa',
  family: 'vjepa',
  license: () => RELEASE_LICENSE.CC_BY_NC,
  layout: 'facebookresearch/jepa .pth.tar (torch zip pickle)',
  ignored: IGNORED,
  async map(source, overrides) {
    const { entry, map } = selectMetaEncoder(source, ENTRIES, IGNORED, overrides.entry);
    const w = metaWidths(map);
    const heads = headsFor('vjepa', w.embedDim, overrides);
    const grid = await tableGrid(map, w, overrides);
    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    map.copy(tensorNames.encPosEmbed, 'pos_embed', 'rows');
    mapEncoderBlocks(map, w.nLayer, (i) => `blocks.${i}`, TIMM_BLOCK);
    mapNorm(map, tensorNames.encNorm, 'norm');
    const enc = encoderHparams('vjepa', { ...metaEncoderFields(w, heads.nHead), ...grid });
    const notes = heads.note ? [heads.note] : [];
    const predictor = optionalMetaTablePredictor(source, enc, overrides, notes);
    if (predictor && entry !== 'encoder')
      notes.push(
        `the predictor was trained on the 'encoder' entry's context features; this file's encoder is '${entry}' (--entry encoder for jepa predict)`,
      );
    return {
      parts: { family: 'vjepa', name: modelName(source), enc, pred: predictor?.pred ?? null, pre: vjepaRecipe(grid.imgSize) },
      map,
      extraMaps: predictor ? [predictor.map] : [],
      sourceEntry: entry,
      notes,
    };
  },
};
