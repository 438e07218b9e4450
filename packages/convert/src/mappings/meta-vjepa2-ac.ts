// Meta V-JEPA 2-AC .pt (facebookresearch/vjepa2 src/hub/backbones.py, _make_vjepa2_ac_model) → family
// vjepa2 with the action-conditioned predictor: the encoder from `encoder` (what that loader reads), the
// `predictor` entry a VisionTransformerPredictorAC (action/state/extrinsics embeds, frame-causal RoPE blocks).
import { tensorNames, type AcPredictorHparams, type EncoderHparams } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { Source } from '../source.js';
import { mapBlock, mapLinear, mapNorm, TIMM_BLOCK } from './blocks.js';
import { countBlocks } from './hparams.js';
import { metaPredictorTensors, wantsMetaPredictor, withPredictorAdvice } from './meta-predictor.js';
import { mapMetaVjepa2Encoder, VJEPA2_ENCODER_IGNORED } from './meta-vjepa2.js';
import { modelName } from './naming.js';
import { vjepaRecipe } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';
import { RELEASE_LICENSE } from './release-license.js';

/** Meta's AC loader takes `encoder`; target_encoder only when a file has no `encoder` (or by --entry). */
const ENTRIES = ['encoder', 'target_encoder'];
/** The released ViT-g AC predictor: 16 heads (its pickle does not record them). */
export const VJEPA2_AC_PREDICTOR_HEADS = 16;
const EXTRINSICS = /^extrinsics_encoder\.(weight|bias)$/;

/** A V-JEPA 2-AC file: its `predictor` entry embeds actions. */
export function isMetaAcPredictor(source: Source): boolean {
  return metaPredictorTensors(source).has('action_encoder.weight');
}

function refuse(message: string): never {
  throw new ConvertError('CONVERT_SHAPE_MISMATCH', `V-JEPA 2-AC predictor: ${message}`);
}

/** Linear `src` as [out, in]: present (both tensors, named when not), 2-D, with the expected widths. */
function acLinear(map: TensorMap, src: string, nOut: number, nIn: number | null): number {
  for (const name of [`${src}.weight`, `${src}.bias`])
    if (!map.has(name)) throw new ConvertError('CONVERT_MISSING_TENSOR', `V-JEPA 2-AC predictor (entry 'predictor') has no tensor '${name}'`);
  const [o, i] = map.matrixShape(`${src}.weight`);
  if (o !== nOut || (nIn !== null && i !== nIn)) refuse(`'${src}.weight' is [${o}, ${i}], expected [${nOut}, ${nIn ?? 'n'}]`);
  return i;
}

export function mapMetaAcPredictor(
  source: Source,
  enc: EncoderHparams,
  nHead: number,
  extrinsics: boolean,
): { map: TensorMap; pred: AcPredictorHparams } {
  const map = new TensorMap(metaPredictorTensors(source), extrinsics ? [] : [EXTRINSICS]);
  if (!map.has('predictor_embed.weight'))
    throw new ConvertError('CONVERT_MISSING_TENSOR', `V-JEPA 2-AC predictor (entry 'predictor') has no tensor 'predictor_embed.weight'`);
  const [P] = map.matrixShape('predictor_embed.weight');
  acLinear(map, 'predictor_embed', P, enc.embedDim);
  const actionDim = acLinear(map, 'action_encoder', P, null);
  const stateDim = acLinear(map, 'state_encoder', P, null);
  if (stateDim !== actionDim)
    refuse(`'action_encoder.weight' takes width ${actionDim} but 'state_encoder.weight' ${stateDim} (Meta's both are action_embed_dim)`);
  if (extrinsics) acLinear(map, 'extrinsics_encoder', P, actionDim - 1);
  acLinear(map, 'predictor_proj', enc.embedDim, P);
  mapLinear(map, 'pred.embed', 'predictor_embed');
  mapLinear(map, 'pred.ac.action', 'action_encoder');
  mapLinear(map, 'pred.ac.state', 'state_encoder');
  if (extrinsics) mapLinear(map, 'pred.ac.extrinsics', 'extrinsics_encoder');
  const nLayer = countBlocks(map.source.keys(), /^predictor_blocks\.(\d+)\./);
  if (nLayer === 0)
    throw new ConvertError('CONVERT_MISSING_TENSOR', `V-JEPA 2-AC predictor (entry 'predictor') has no tensor 'predictor_blocks.0.attn.qkv.weight'`);
  const [ffnDim] = map.matrixShape(`predictor_blocks.0.${TIMM_BLOCK.fc1}.weight`);
  for (let i = 0; i < nLayer; i++) mapBlock(map, tensorNames.predBlock(i), `predictor_blocks.${i}`, TIMM_BLOCK);
  mapNorm(map, 'pred.norm', 'predictor_norm');
  mapLinear(map, 'pred.proj', 'predictor_proj');
  const pred: AcPredictorHparams = {
    kind: 'ac',
    embedDim: P,
    nLayer,
    nHead,
    headDim: Math.floor(P / nHead),
    ffnDim,
    lnEps: Math.fround(1e-6),
    act: 'gelu',
    actionDim,
    stateDim,
    extrinsics,
    condTokens: extrinsics ? 3 : 2,
    frameCausal: true,
    tubeletSize: enc.tubeletSize,
    nFrames: enc.nFrames,
    maxSteps: Math.floor(enc.nFrames / enc.tubeletSize),
    gridSize: enc.gridSize,
    rope: { layout: 'tiled', theta: 10000, interpolate: false, refGrid: null },
  };
  return { map, pred };
}

export const metaVjepa2Ac: Mapping = {
  id: 'meta-vjepa2-ac',
  family: 'vjepa2',
  license: () => RELEASE_LICENSE.MIT,
  layout: 'facebookresearch/vjepa2 V-JEPA 2-AC .pt (torch zip pickle)',
  ignored: [...VJEPA2_ENCODER_IGNORED, EXTRINSICS],
  map(source, overrides) {
    const { entry, map, enc, imgSize, notes } = mapMetaVjepa2Encoder(source, overrides, ENTRIES);
    notes.unshift(
      entry === 'encoder'
        ? `encoder from the 'encoder' entry, as Meta's AC loader (_make_vjepa2_ac_model) takes it`
        : `encoder from the '${entry}' entry${overrides.entry === undefined ? " (the file has no 'encoder')" : ' (--entry)'}; Meta's AC loader takes 'encoder'`,
    );
    if (!wantsMetaPredictor(source, overrides, notes)) {
      const parts = { family: 'vjepa2' as const, name: modelName(source), enc, pre: vjepaRecipe(imgSize) };
      return { parts, map, sourceEntry: entry, notes };
    }
    const nHead = overrides.predNHead ?? VJEPA2_AC_PREDICTOR_HEADS;
    if (overrides.predNHead === undefined) notes.push(`AC predictor: ${nHead} heads, the released ViT-g AC predictor's (--pred-n-head overrides)`);
    const extrinsics = overrides.acExtrinsics ?? false;
    notes.push(
      extrinsics
        ? 'AC predictor with the camera-extrinsics token (--ac-extrinsics)'
        : 'AC predictor without the camera-extrinsics token, as released (the .pt does not record it; --ac-extrinsics adds it); extrinsics_encoder skipped',
    );
    const predictor = withPredictorAdvice(() => mapMetaAcPredictor(source, enc, nHead, extrinsics));
    return {
      parts: { family: 'vjepa2', name: modelName(source), enc, pred: predictor.pred, pre: vjepaRecipe(imgSize) },
      map,
      extraMaps: [predictor.map],
      sourceEntry: entry,
      notes,
    };
  },
};
