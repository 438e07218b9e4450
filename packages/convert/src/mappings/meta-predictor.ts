// The `predictor` entry of a Meta V-JEPA 2 / 2.1 .pt → the schema's masked predictor (families.md §3.5,
// §4.5): predictor_embed (2.1 g/G: Linear → GELU → Linear), stacked mask tokens, RoPE blocks,
// predictor_norm, predictor_proj (+ 2.1 predictor_proj_context and modality vectors).
import { FAMILY_TRAITS, tensorNames, type EncoderHparams, type MaskedPredictorHparams } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { stripPrefixes, valueAt, flattenTensors } from '../readers/state-dict.js';
import type { TensorRef } from '../readers/tensor-ref.js';
import type { Source } from '../source.js';
import { mapBlock, mapLinear, mapNorm, TIMM_BLOCK } from './blocks.js';
import { countBlocks } from './hparams.js';
import { META_PREFIXES } from './meta-encoder.js';
import { TensorMap } from './tensor-map.js';
import type { ArchOverrides } from './types.js';

/** The sincos table the predictor builds but RoPE predictors never add. */
const IGNORED = [/^predictor_pos_embed$/];

/** V-JEPA 2's predictor: 12 heads (HF config pred_num_attention_heads); 2.1's count is not documented. */
export const VJEPA2_PREDICTOR_HEADS = 12;

/** The families whose Meta pickles carry this predictor. */
export type MetaPredictorFamily = 'vjepa2' | 'vjepa2_1';

/** The head count a pickle of the family does not record but its release documents. */
const DOCUMENTED_HEADS: Partial<Record<MetaPredictorFamily, number>> = { vjepa2: VJEPA2_PREDICTOR_HEADS };

export interface MappedPredictor {
  map: TensorMap;
  pred: MaskedPredictorHparams;
}

export function hasMetaPredictor(source: Source): boolean {
  return valueAt(source.checkpoint.root, 'predictor') !== undefined;
}

/** The `predictor` entry of a Meta pickle as a table with the wrapper prefixes stripped (empty when it holds no tensors). */
export function metaPredictorTensors(source: Source): ReadonlyMap<string, TensorRef> {
  const entry = valueAt(source.checkpoint.root, 'predictor');
  return entry === undefined ? new Map() : stripPrefixes(flattenTensors(entry), META_PREFIXES);
}

/** What every Meta masked predictor ends in (timm blocks, predictor_norm, predictor_proj) and the widths they give. */
export function mapMetaPredictorTrunk(
  map: TensorMap,
  nHead: number,
): Pick<MaskedPredictorHparams, 'embedDim' | 'nLayer' | 'nHead' | 'headDim' | 'ffnDim' | 'lnEps' | 'act' | 'outDim'> {
  const nLayer = countBlocks(map.source.keys(), /^predictor_blocks\.(\d+)\./);
  for (let i = 0; i < nLayer; i++) mapBlock(map, tensorNames.predBlock(i), `predictor_blocks.${i}`, TIMM_BLOCK);
  mapNorm(map, 'pred.norm', 'predictor_norm');
  mapLinear(map, 'pred.proj', 'predictor_proj');
  const embedDim = map.shapeOf('predictor_norm.weight')[0]!;
  return {
    embedDim,
    nLayer,
    nHead,
    headDim: Math.floor(embedDim / nHead),
    ffnDim: map.shapeOf('predictor_blocks.0.mlp.fc1.weight')[0]!,
    lnEps: Math.fround(1e-6),
    act: 'gelu',
    outDim: map.matrixShape('predictor_proj.weight')[0],
  };
}

export function mapMetaPredictor(source: Source, enc: EncoderHparams, nHead: number, family: MetaPredictorFamily): MappedPredictor {
  const traits = FAMILY_TRAITS[family];
  const map = new TensorMap(metaPredictorTensors(source), IGNORED);
  const embedMlp = map.has('predictor_embed.0.weight');
  // Refused by name up front: what a masked predictor cannot be read without.
  for (const name of [
    embedMlp ? 'predictor_embed.2.weight' : 'predictor_embed.weight',
    'mask_tokens.0',
    'predictor_norm.weight',
    'predictor_proj.weight',
  ])
    if (!map.has(name)) throw new ConvertError('CONVERT_MISSING_TENSOR', `the masked predictor (entry 'predictor') has no tensor '${name}'`);
  if (embedMlp) {
    mapLinear(map, 'pred.embed_in', 'predictor_embed.0');
    mapLinear(map, 'pred.embed', 'predictor_embed.2');
  } else {
    mapLinear(map, 'pred.embed', 'predictor_embed');
  }
  const embedIn = map.matrixShape(embedMlp ? 'predictor_embed.0.weight' : 'predictor_embed.weight')[1];
  const nMaskTokens = map.names(/^mask_tokens\.\d+$/).length;
  map.concat(
    'pred.mask_tokens',
    Array.from({ length: nMaskTokens }, (_, k) => `mask_tokens.${k}`),
    'rows',
  );
  const modalityVectors = traits.predictorModalityVectors && map.has('img_mod_embed');
  if (modalityVectors) {
    map.copy('pred.img_mod_embed', 'img_mod_embed', 'vec');
    map.copy('pred.video_mod_embed', 'video_mod_embed', 'vec');
  }
  const trunk = mapMetaPredictorTrunk(map, nHead);
  const projContext = map.has('predictor_proj_context.weight');
  if (projContext) mapLinear(map, 'pred.proj_context', 'predictor_proj_context');

  const pred: MaskedPredictorHparams = {
    kind: 'masked',
    ...trunk,
    nMaskTokens,
    gridSize: enc.gridSize,
    pos: 'rope3d',
    posRows: 0,
    rope: { layout: traits.ropeLayout ?? 'tiled', theta: 10000, interpolate: false, refGrid: null },
    embedInDim: embedIn,
    embedMlp,
    projContext,
    modalityVectors,
  };
  return { map, pred };
}

/** Whether to read the `predictor` entry: the file has one and --no-predictor does not leave it out (a note says so). */
export function wantsMetaPredictor(source: Source, overrides: ArchOverrides, notes: string[]): boolean {
  if (!hasMetaPredictor(source)) return false;
  if (overrides.noPredictor) {
    notes.push("the 'predictor' entry left out (--no-predictor): the encoder alone is converted");
    return false;
  }
  return true;
}

/** A predictor entry the mapping cannot read is refused with the way to the encoder alone. */
export function withPredictorAdvice<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConvertError)) throw error;
    throw new ConvertError(error.code, `${error.message}; --no-predictor converts the encoder alone`, { cause: error });
  }
}

/** The predictor of a Meta .pt when the file has one, it is wanted, and its head count is known or given; else a note says why not. */
export function optionalMetaPredictor(
  source: Source,
  enc: EncoderHparams,
  overrides: ArchOverrides,
  family: MetaPredictorFamily,
  notes: string[],
): MappedPredictor | null {
  if (!wantsMetaPredictor(source, overrides, notes)) return null;
  const nHead = overrides.predNHead ?? DOCUMENTED_HEADS[family];
  if (nHead === undefined) {
    notes.push('predictor left out: a 2.1 pickle does not record its head count (--pred-n-head includes it)');
    return null;
  }
  return withPredictorAdvice(() => mapMetaPredictor(source, enc, nHead, family));
}
