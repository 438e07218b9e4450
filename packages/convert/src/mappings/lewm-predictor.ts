// The LeWM world-model parts (families.md §6.3) → the schema's action predictor: projector and pred_proj
// with their BatchNorm folded into the first Linear, the Conv1d(k=1) action embedding as a Linear, the
// AdaLN-zero ARPredictor blocks.
import { tensorNames, type ActionPredictorHparams } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { foldBatchNorm } from './batchnorm-fold.js';
import { mapLinear, mapNorm } from './blocks.js';
import type { ConfigReader } from './config.js';
import { countBlocks } from './hparams.js';
import { ggmlShape, type TensorMap } from './tensor-map.js';

/** `src.net.0` Linear → `src.net.1` BatchNorm1d → act → `src.net.3` Linear, as `out.fc1` (folded) and `out.fc2`. */
function mapBatchNormMlp(map: TensorMap, out: string, src: string): void {
  const lin = `${src}.net.0`;
  const bn = `${src}.net.1`;
  const parts = [`${lin}.weight`, `${lin}.bias`, `${bn}.weight`, `${bn}.bias`, `${bn}.running_mean`, `${bn}.running_var`];
  const fold = (inputs: Float32Array[]) => foldBatchNorm(inputs[0]!, inputs[1]!, inputs[2]!, inputs[3]!, inputs[4]!, inputs[5]!);
  map.derive(`${out}.fc1.weight`, ggmlShape(map.shapeOf(`${lin}.weight`), 'linear'), parts, (inputs) => fold(inputs).weight);
  map.derive(`${out}.fc1.bias`, [map.shapeOf(`${lin}.bias`)[0]!], parts, (inputs) => fold(inputs).bias);
  map.consume(`${bn}.num_batches_tracked`);
  mapLinear(map, `${out}.fc2`, `${src}.net.3`);
}

export function hasActionPredictor(map: TensorMap): boolean {
  return map.has('predictor.pos_embedding');
}

export function mapLewmPredictor(map: TensorMap, predictorConfig: ConfigReader | null): ActionPredictorHparams {
  const layers = 'predictor.transformer.layers';
  const nLayer = countBlocks(map.source.keys(), /^predictor\.transformer\.layers\.(\d+)\./);
  const pos = map.shapeOf('predictor.pos_embedding');
  const embedDim = pos[2]!;
  const inner = map.shapeOf(`${layers}.0.attn.to_qkv.weight`)[0]! / 3;
  const nHead = predictorConfig?.int('heads', 16) ?? 16;
  if (inner % nHead !== 0)
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `predictor heads ${nHead} do not divide the attention width ${inner} of '${layers}.0.attn.to_qkv.weight'`,
    );
  if (predictorConfig?.has('dim_head')) predictorConfig.agree('dim_head', inner / nHead, `${layers}.0.attn.to_qkv.weight`);

  mapBatchNormMlp(map, 'pred.projector', 'projector');
  map.copy('pred.action.embed.weight', 'action_encoder.patch_embed.weight', 'conv');
  map.copy('pred.action.embed.bias', 'action_encoder.patch_embed.bias', 'vec');
  mapLinear(map, 'pred.action.fc1', 'action_encoder.embed.0');
  mapLinear(map, 'pred.action.fc2', 'action_encoder.embed.2');
  map.copy('pred.pos_embed', 'predictor.pos_embedding', 'rows');
  for (let i = 0; i < nLayer; i++) {
    const out = tensorNames.predBlock(i);
    const src = `${layers}.${i}`;
    mapLinear(map, `${out}.adaln`, `${src}.adaLN_modulation.1`);
    mapNorm(map, `${out}.attn_norm`, `${src}.attn.norm`);
    map.copy(`${out}.attn.qkv.weight`, `${src}.attn.to_qkv.weight`, 'linear');
    mapLinear(map, `${out}.attn.proj`, `${src}.attn.to_out.0`);
    mapNorm(map, `${out}.ffn_norm`, `${src}.mlp.net.0`);
    mapLinear(map, `${out}.ffn.fc1`, `${src}.mlp.net.1`);
    mapLinear(map, `${out}.ffn.fc2`, `${src}.mlp.net.4`);
  }
  mapNorm(map, 'pred.norm', 'predictor.transformer.norm');
  mapBatchNormMlp(map, 'pred.out_proj', 'pred_proj');

  return {
    kind: 'action',
    embedDim,
    nLayer,
    nHead,
    headDim: inner / nHead,
    ffnDim: map.shapeOf(`${layers}.0.mlp.net.1.weight`)[0]!,
    lnEps: Math.fround(1e-5),
    adalnEps: Math.fround(1e-6),
    act: 'gelu',
    nFrames: pos[1]!,
    actionDim: map.shapeOf('action_encoder.patch_embed.weight')[0]!,
    actionHidden: map.shapeOf('action_encoder.embed.0.weight')[0]!,
    actionAct: 'silu',
    projHidden: map.shapeOf('projector.net.0.weight')[0]!,
    projAct: 'gelu',
  };
}
