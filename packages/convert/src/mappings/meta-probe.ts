// A Meta attentive probe file (V-JEPA v1 `*-probe.pth.tar`, key `classifier`; V-JEPA 2 `evals/*.pt`, key
// `classifiers[0]`) → the schema's attentive head (families.md §2.4, §3.3, §3.6): AttentivePooler
// `blocks.{i}` (self-attention) + `cross_attention_block` (q, fused kv, no output projection) + `linear`.
import { tensorNames, type EncoderHparams, type AttentiveHeadHparams } from '@jepa/gguf';
import { selectStateDict, stripPrefixes } from '../readers/state-dict.js';
import type { Checkpoint } from '../readers/checkpoint.js';
import { mapBlock, mapLinear, mapNorm, TIMM_BLOCK } from './blocks.js';
import { countBlocks } from './hparams.js';
import { TensorMap } from './tensor-map.js';

const ENTRIES = ['classifiers[0]', 'classifier', ''];
/** v1's CrossAttention constructs an output projection that its forward never applies. */
const IGNORED = [/^pooler\.cross_attention_block\.xattn\.proj\./];
/** Meta's probes use nn.LayerNorm's default epsilon. */
const PROBE_LN_EPS = 1e-5;

export interface MappedProbe {
  map: TensorMap;
  head: AttentiveHeadHparams;
  entry: string;
}

/** The probe's heads are not stored: Meta's eval configs use the encoder's count (16 for every released probe). */
export function mapMetaProbe(probe: Checkpoint, enc: EncoderHparams, nHead = enc.nHead): MappedProbe {
  const { key, tensors } = selectStateDict(probe.root, ENTRIES);
  const map = new TensorMap(stripPrefixes(tensors, ['module.']), IGNORED);
  const depth = map.names(/^pooler\.blocks\.0\./).length > 0 ? countBlocks(map.source.keys(), /^pooler\.blocks\.(\d+)\./) : 0;
  const xa = 'pooler.cross_attention_block';
  map.copy('head.query', 'pooler.query_tokens', 'vec');
  for (let i = 0; i < depth; i++) mapBlock(map, tensorNames.headBlock(i), `pooler.blocks.${i}`, TIMM_BLOCK);
  mapNorm(map, 'head.xattn.ln1', `${xa}.norm1`);
  mapLinear(map, 'head.xattn.q', `${xa}.xattn.q`);
  mapLinear(map, 'head.xattn.kv', `${xa}.xattn.kv`);
  mapNorm(map, 'head.xattn.ln2', `${xa}.norm2`);
  mapLinear(map, 'head.xattn.ffn.fc1', `${xa}.mlp.fc1`);
  mapLinear(map, 'head.xattn.ffn.fc2', `${xa}.mlp.fc2`);
  mapLinear(map, 'head.cls', 'linear');
  const head: AttentiveHeadHparams = {
    kind: 'attentive',
    nClasses: map.shapeOf('linear.weight')[0]!,
    depth,
    nHead,
    headDim: Math.floor(enc.embedDim / nHead),
    ffnDim: map.shapeOf(`${xa}.mlp.fc1.weight`)[0]!,
    lnEps: Math.fround(PROBE_LN_EPS),
    act: 'gelu',
  };
  return { map, head, entry: key };
}
