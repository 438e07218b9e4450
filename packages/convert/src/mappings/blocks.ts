// The pre-LN ViT block under its two source spellings: timm/Meta (fused `attn.qkv`) and HF (separate
// query/key/value, fused here in q; k; v order along the output axis).
import { tensorNames } from '@jepa/gguf';
import type { TensorMap } from './tensor-map.js';

export interface BlockNames {
  ln1: string;
  /** One fused name, or [query, key, value]. */
  qkv: string | readonly [string, string, string];
  proj: string;
  ln2: string;
  fc1: string;
  fc2: string;
  /** Layer-scale vectors, when the block has them. */
  ls1?: string;
  ls2?: string;
  /**
   * The SwiGLU MLP's in ([2h, D], rows x1; x2: one fused name, or [x1, x2] stacked here) and out ([D, h])
   * projections, where the layout has that variant.
   */
  swigluIn?: string | readonly [string, string];
  swigluOut?: string;
}

/** What a checkpoint's config may vary in a block: the SwiGLU MLP, and q/k/v without bias. */
export interface BlockVariant {
  swiglu?: boolean;
  qkvBias?: boolean;
}

export const TIMM_BLOCK: BlockNames = {
  ln1: 'norm1',
  qkv: 'attn.qkv',
  proj: 'attn.proj',
  ln2: 'norm2',
  fc1: 'mlp.fc1',
  fc2: 'mlp.fc2',
};

export const HF_VIT_BLOCK: BlockNames = {
  ln1: 'layernorm_before',
  qkv: ['attention.attention.query', 'attention.attention.key', 'attention.attention.value'],
  proj: 'attention.output.dense',
  ln2: 'layernorm_after',
  fc1: 'intermediate.dense',
  fc2: 'output.dense',
};

export const HF_DINOV2_BLOCK: BlockNames = {
  ln1: 'norm1',
  qkv: ['attention.attention.query', 'attention.attention.key', 'attention.attention.value'],
  proj: 'attention.output.dense',
  ln2: 'norm2',
  fc1: 'mlp.fc1',
  fc2: 'mlp.fc2',
  ls1: 'layer_scale1.lambda1',
  ls2: 'layer_scale2.lambda1',
  swigluIn: 'mlp.weights_in',
  swigluOut: 'mlp.weights_out',
};

export const HF_VJEPA2_BLOCK: BlockNames = {
  ln1: 'norm1',
  qkv: ['attention.query', 'attention.key', 'attention.value'],
  proj: 'attention.proj',
  ln2: 'norm2',
  fc1: 'mlp.fc1',
  fc2: 'mlp.fc2',
};

/** A LayerNorm or bias-carrying linear: `.weight` and `.bias`. */
export function mapNorm(map: TensorMap, out: string, src: string): void {
  map.copy(`${out}.weight`, `${src}.weight`, 'vec');
  map.copy(`${out}.bias`, `${src}.bias`, 'vec');
}

export function mapLinear(map: TensorMap, out: string, src: string): void {
  map.copy(`${out}.weight`, `${src}.weight`, 'linear');
  map.copy(`${out}.bias`, `${src}.bias`, 'vec');
}

/** Block `src` (a name prefix ending before the block's own names) → `out` (e.g. `enc.blk.3`). */
export function mapBlock(map: TensorMap, out: string, src: string, n: BlockNames, v: BlockVariant = {}): void {
  const qkvBias = v.qkvBias ?? true;
  mapNorm(map, `${out}.ln1`, `${src}.${n.ln1}`);
  if (typeof n.qkv === 'string') {
    if (qkvBias) mapLinear(map, `${out}.attn.qkv`, `${src}.${n.qkv}`);
    else map.copy(`${out}.attn.qkv.weight`, `${src}.${n.qkv}.weight`, 'linear');
  } else {
    map.concat(
      `${out}.attn.qkv.weight`,
      n.qkv.map((p) => `${src}.${p}.weight`),
      'linear',
    );
    if (qkvBias)
      map.concat(
        `${out}.attn.qkv.bias`,
        n.qkv.map((p) => `${src}.${p}.bias`),
        'vec',
      );
  }
  mapLinear(map, `${out}.attn.proj`, `${src}.${n.proj}`);
  if (n.ls1) map.copy(`${out}.ls1`, `${src}.${n.ls1}`, 'vec');
  mapNorm(map, `${out}.ln2`, `${src}.${n.ln2}`);
  if (v.swiglu) {
    if (!n.swigluIn || !n.swigluOut) throw new Error('mapping bug: this block layout has no SwiGLU names');
    if (typeof n.swigluIn === 'string') mapLinear(map, `${out}.ffn.w12`, `${src}.${n.swigluIn}`);
    else {
      map.concat(
        `${out}.ffn.w12.weight`,
        n.swigluIn.map((p) => `${src}.${p}.weight`),
        'linear',
      );
      map.concat(
        `${out}.ffn.w12.bias`,
        n.swigluIn.map((p) => `${src}.${p}.bias`),
        'vec',
      );
    }
    mapLinear(map, `${out}.ffn.w3`, `${src}.${n.swigluOut}`);
  } else {
    mapLinear(map, `${out}.ffn.fc1`, `${src}.${n.fc1}`);
    mapLinear(map, `${out}.ffn.fc2`, `${src}.${n.fc2}`);
  }
  if (n.ls2) map.copy(`${out}.ls2`, `${src}.${n.ls2}`, 'vec');
}

export function mapEncoderBlocks(map: TensorMap, nLayer: number, srcBlock: (i: number) => string, names: BlockNames, v: BlockVariant = {}): void {
  for (let i = 0; i < nLayer; i++) mapBlock(map, tensorNames.encBlock(i), srcBlock(i), names, v);
}

/** Width and FFN width of block 0, read from its tensors (the source of truth the config is checked against). */
export function blockWidths(map: TensorMap, src: string, n: BlockNames): { embedDim: number; ffnDim: number } {
  const fc1 = map.shapeOf(`${src}.${n.fc1}.weight`);
  return { embedDim: fc1[1]!, ffnDim: fc1[0]! };
}

/** A Conv2d/Conv3d patch embedding (`src.weight` [D, C, (T), P, P], `src.bias`) → `out.weight` [C·T·P·P, D], `out.bias`. */
export function mapPatchEmbed(map: TensorMap, out: string, src: string): void {
  map.copy(`${out}.weight`, `${src}.weight`, 'conv');
  map.copy(`${out}.bias`, `${src}.bias`, 'vec');
}
