// The `predictor` entry of a Meta I-JEPA / V-JEPA (v1) .pth.tar → the schema's masked predictor with
// table positions (families.md §1.3, §2.2): predictor_embed, the mask token(s), the stored sincos
// predictor_pos_embed, plain blocks (heads = encoder heads), predictor_norm, predictor_proj.
import type { EncoderHparams, MaskedPredictorHparams } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { mapLinear } from './blocks.js';
import { mapMetaPredictorTrunk, metaPredictorTensors, wantsMetaPredictor, withPredictorAdvice, type MappedPredictor } from './meta-predictor.js';
import { TensorMap } from './tensor-map.js';
import type { Source } from '../source.js';
import type { ArchOverrides } from './types.js';

/** I-JEPA has one `mask_token`; V-JEPA v1 one `mask_tokens.{k}` per mask config (2 in the released runs). */
function maskTokenNames(map: TensorMap): string[] {
  if (map.has('mask_token')) return ['mask_token'];
  const n = map.names(/^mask_tokens\.\d+$/).length;
  return Array.from({ length: n }, (_, k) => `mask_tokens.${k}`);
}

export function mapMetaTablePredictor(source: Source, enc: EncoderHparams, nHead: number): MappedPredictor {
  const map = new TensorMap(metaPredictorTensors(source), []);
  const masks = maskTokenNames(map);
  for (const name of ['predictor_embed.weight', masks[0] ?? 'mask_token', 'predictor_pos_embed', 'predictor_norm.weight', 'predictor_proj.weight'])
    if (!map.has(name)) throw new ConvertError('CONVERT_MISSING_TENSOR', `the masked predictor (entry 'predictor') has no tensor '${name}'`);
  const embedDim = map.shapeOf('predictor_norm.weight')[0]!;
  const table = map.shapeOf('predictor_pos_embed');
  if (table.at(-1) !== embedDim || table.slice(0, -1).reduce((a, b) => a * b, 1) !== enc.nPatches)
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `predictor_pos_embed is [${table.join(', ')}], not the [1, ${enc.nPatches}, ${embedDim}] table of the encoder's ${enc.gridFrames}x${enc.gridSize}x${enc.gridSize} grid`,
    );
  mapLinear(map, 'pred.embed', 'predictor_embed');
  map.concat('pred.mask_tokens', masks, 'rows');
  map.copy('pred.pos_embed', 'predictor_pos_embed', 'rows');
  const pred: MaskedPredictorHparams = {
    kind: 'masked',
    ...mapMetaPredictorTrunk(map, nHead),
    nMaskTokens: masks.length,
    gridSize: enc.gridSize,
    pos: 'table',
    rope: null,
    posRows: enc.nPatches,
    embedInDim: map.matrixShape('predictor_embed.weight')[1],
    embedMlp: false,
    projContext: false,
    modalityVectors: false,
  };
  return { map, pred };
}

/** The predictor of a Meta I-JEPA / V-JEPA v1 pickle when it has one and it is wanted; its heads are the encoder's unless given. */
export function optionalMetaTablePredictor(source: Source, enc: EncoderHparams, overrides: ArchOverrides, notes: string[]): MappedPredictor | null {
  if (!wantsMetaPredictor(source, overrides, notes)) return null;
  return withPredictorAdvice(() => mapMetaTablePredictor(source, enc, overrides.predNHead ?? enc.nHead));
}
