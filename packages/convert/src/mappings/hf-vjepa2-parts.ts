// The optional parts of an HF V-JEPA 2 file (families.md §3.3): the masked predictor and the
// attentive pooler + classifier (VJEPA2ForVideoClassification).
import { tensorNames, type EncoderHparams, type AttentiveHeadHparams, type MaskedPredictorHparams } from '@jepa/gguf';
import { HF_VJEPA2_BLOCK, mapBlock, mapLinear, mapNorm, type BlockNames } from './blocks.js';
import { activationOf, type ConfigReader } from './config.js';
import { countBlocks } from './hparams.js';
import type { TensorMap } from './tensor-map.js';

const POOLER_SELF_BLOCK: BlockNames = {
  ln1: 'layer_norm1',
  qkv: ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj'],
  proj: 'self_attn.out_proj',
  ln2: 'layer_norm2',
  fc1: 'mlp.fc1',
  fc2: 'mlp.fc2',
};

export function mapHfVjepa2Predictor(map: TensorMap, c: ConfigReader, enc: EncoderHparams): MaskedPredictorHparams | null {
  const embed = 'predictor.embeddings.predictor_embeddings';
  if (!map.has(`${embed}.weight`)) return null;
  const w = map.shapeOf(`${embed}.weight`);
  const embedDim = c.agree('pred_hidden_size', w[0]!, `${embed}.weight`);
  const nLayer = c.agree('pred_num_hidden_layers', countBlocks(map.source.keys(), /^predictor\.layer\.(\d+)\./), 'predictor.layer.*');
  const fc1 = `predictor.layer.0.${HF_VJEPA2_BLOCK.fc1}.weight`;
  const ffnDim = map.shapeOf(fc1)[0]!;
  c.agreeRatio('pred_mlp_ratio', embedDim, ffnDim, fc1);
  const maskTokens = map.shapeOf('predictor.embeddings.mask_tokens');
  const nMaskTokens = c.agree('pred_num_mask_tokens', maskTokens[0]!, 'predictor.embeddings.mask_tokens');
  const nHead = c.int('pred_num_attention_heads');

  mapLinear(map, 'pred.embed', embed);
  map.copy('pred.mask_tokens', 'predictor.embeddings.mask_tokens', 'rows');
  for (let i = 0; i < nLayer; i++) mapBlock(map, tensorNames.predBlock(i), `predictor.layer.${i}`, HF_VJEPA2_BLOCK);
  mapNorm(map, 'pred.norm', 'predictor.layernorm');
  mapLinear(map, 'pred.proj', 'predictor.proj');
  return {
    kind: 'masked',
    embedDim,
    nLayer,
    nHead,
    headDim: Math.floor(embedDim / nHead),
    ffnDim,
    lnEps: enc.lnEps,
    act: enc.act,
    nMaskTokens,
    gridSize: enc.gridSize,
    pos: 'rope3d',
    posRows: 0,
    rope: { layout: 'tiled', theta: 10000, interpolate: false, refGrid: null },
    outDim: map.shapeOf('predictor.proj.weight')[0]!,
    embedInDim: w[1]!,
    embedMlp: false,
    projContext: false,
    modalityVectors: false,
  };
}

/** config.json's id2label as n_classes names in index order, or null where it is absent or incomplete. */
export function labelsOf(c: ConfigReader, nClasses: number): string[] | null {
  const raw = c.raw('id2label');
  if (typeof raw !== 'object' || raw === null) return null;
  const table = raw as Record<string, unknown>;
  const labels: string[] = [];
  for (let i = 0; i < nClasses; i++) {
    const v = table[String(i)];
    if (typeof v !== 'string') return null;
    labels.push(v);
  }
  return labels;
}

export function mapHfVjepa2Head(
  map: TensorMap,
  c: ConfigReader,
  enc: EncoderHparams,
): { head: AttentiveHeadHparams | null; labels: string[] | null } {
  if (!map.has('pooler.query_tokens')) return { head: null, labels: null };
  const depth = c.agree(
    'num_pooler_layers',
    countBlocks(map.source.keys(), /^pooler\.self_attention_layers\.(\d+)\./),
    'pooler.self_attention_layers.*',
  );
  const xa = 'pooler.cross_attention_layer';
  const ffnDim = map.shapeOf(`${xa}.mlp.fc1.weight`)[0]!;
  const nClasses = map.shapeOf('classifier.weight')[0]!;
  const nHead = c.int('num_attention_heads');

  map.copy('head.query', 'pooler.query_tokens', 'vec');
  for (let i = 0; i < depth; i++) mapBlock(map, tensorNames.headBlock(i), `pooler.self_attention_layers.${i}`, POOLER_SELF_BLOCK);
  mapNorm(map, 'head.xattn.ln1', `${xa}.layer_norm1`);
  mapLinear(map, 'head.xattn.q', `${xa}.cross_attn.q_proj`);
  map.concat('head.xattn.kv.weight', [`${xa}.cross_attn.k_proj.weight`, `${xa}.cross_attn.v_proj.weight`], 'linear');
  map.concat('head.xattn.kv.bias', [`${xa}.cross_attn.k_proj.bias`, `${xa}.cross_attn.v_proj.bias`], 'vec');
  mapNorm(map, 'head.xattn.ln2', `${xa}.layer_norm2`);
  mapLinear(map, 'head.xattn.ffn.fc1', `${xa}.mlp.fc1`);
  mapLinear(map, 'head.xattn.ffn.fc2', `${xa}.mlp.fc2`);
  mapLinear(map, 'head.cls', 'classifier');
  const head: AttentiveHeadHparams = {
    kind: 'attentive',
    nClasses,
    depth,
    nHead,
    headDim: Math.floor(enc.embedDim / nHead),
    ffnDim,
    lnEps: enc.lnEps,
    act: activationOf(c.str('hidden_act', 'gelu'), 'config.json hidden_act'),
  };
  return { head, labels: labelsOf(c, nClasses) };
}
