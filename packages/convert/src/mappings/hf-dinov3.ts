// HF DINOv3ViTModel folders (model_type dinov3_vit: config.json, preprocessor_config.json, safetensors) → family
// dinov3. q/k/v are separate there, the key projection without a bias (key_bias false): the fused bias takes
// zeros for it, which is what Meta's masked key bias computes.
import { DINOV3_ROPE_BASE, tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { BlockNames } from './blocks.js';
import { mapEncoderBlocks, mapPatchEmbed } from './blocks.js';
import { activationOf, ConfigReader } from './config.js';
import { DINOV3_LICENSE, dinov3Recipe, finishDinov3 } from './dinov3-common.js';
import { countBlocks } from './hparams.js';
import { modelName } from './naming.js';
import { recipeFromHfProcessor } from './preprocess-recipe.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';

const IGNORED = [/^embeddings\.mask_token$/]; // masked-image-modelling only

const QKV = ['attention.q_proj', 'attention.k_proj', 'attention.v_proj'] as const;

const BLOCK: BlockNames = {
  ln1: 'norm1',
  qkv: QKV,
  proj: 'attention.o_proj',
  ln2: 'norm2',
  fc1: 'mlp.up_proj',
  fc2: 'mlp.down_proj',
  ls1: 'layer_scale1.lambda1',
  ls2: 'layer_scale2.lambda1',
  // DINOv3ViTGatedMLP: down_proj(act(gate_proj x) * up_proj x)
  swigluIn: ['mlp.gate_proj', 'mlp.up_proj'],
  swigluOut: 'mlp.down_proj',
};

/** The fused q; k; v bias, zeros where a projection has none; false when block 0 has none of the three. */
function mapQkvBias(map: TensorMap, nLayer: number, dim: number): boolean {
  if (!QKV.some((p) => map.has(`layer.0.${p}.bias`))) return false;
  for (let i = 0; i < nLayer; i++) {
    const names = QKV.map((p) => `layer.${i}.${p}.bias`);
    map.derive(
      `${tensorNames.encBlock(i)}.attn.qkv.bias`,
      [3 * dim],
      names.filter((n) => map.has(n)),
      (inputs) => {
        const out = new Float32Array(3 * dim);
        let next = 0;
        names.forEach((n, part) => {
          if (map.has(n)) out.set(inputs[next++]!, part * dim);
        });
        return out;
      },
    );
  }
  return true;
}

function refuseUnbiased(c: ConfigReader, key: string): void {
  if (!c.bool(key, true))
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `config.json: ${key} is false; the engine's DINOv3 blocks carry that bias (every released model does)`,
    );
}

export const hfDinov3: Mapping = {
  id: 'hf-dinov3',
  family: 'dinov3',
  license: () => DINOV3_LICENSE,
  layout: 'HF DINOv3ViTModel folder (config.json + safetensors)',
  ignored: IGNORED,
  map(source) {
    const c = new ConfigReader(source.config ?? {}, 'config.json');
    const map = new TensorMap(source.checkpoint.tensors, IGNORED);
    refuseUnbiased(c, 'proj_bias');
    refuseUnbiased(c, 'mlp_bias');
    const patch = map.shapeOf('embeddings.patch_embeddings.weight');
    const embedDim = c.agree('hidden_size', patch[0]!, 'embeddings.patch_embeddings.weight');
    const nLayer = c.agree('num_hidden_layers', countBlocks(map.source.keys(), /^layer\.(\d+)\./), 'layer.*');
    // released configs say use_gated_mlp; some transformers versions wrote use_swiglu_ffn
    const gated = c.bool('use_gated_mlp', c.bool('use_swiglu_ffn', false));
    if (gated !== map.has('layer.0.mlp.gate_proj.weight'))
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `config.json: use_gated_mlp is ${gated}, but the checkpoint ${gated ? 'has no' : 'has a'} 'layer.0.mlp.gate_proj.weight'`,
      );
    const ffnDim = c.agree('intermediate_size', map.matrixShape('layer.0.mlp.up_proj.weight')[0], 'layer.0.mlp.up_proj.weight');
    const act = activationOf(c.str('hidden_act', gated ? 'silu' : 'gelu'), 'config.json hidden_act');
    if (gated && act !== 'silu')
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `config.json: a gated MLP with hidden_act '${c.str('hidden_act')}'; the engine's SwiGLU gates with SiLU`,
      );
    const nReg = map.has('embeddings.register_tokens') ? map.shapeOf('embeddings.register_tokens')[1]! : 0;
    c.agree('num_register_tokens', nReg, 'embeddings.register_tokens');
    const nHead = c.int('num_attention_heads');

    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'embeddings.patch_embeddings');
    map.copy(tensorNames.encClsToken, 'embeddings.cls_token', 'rows');
    if (nReg > 0) map.copy(tensorNames.encRegTokens, 'embeddings.register_tokens', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `layer.${i}`, BLOCK, { swiglu: gated, qkvBias: false });
    const qkvBias = mapQkvBias(map, nLayer, embedDim);
    const enc = finishDinov3(map, {
      embedDim,
      nLayer,
      nHead,
      ffnDim,
      patchSize: c.agree('patch_size', patch[3]!, 'embeddings.patch_embeddings.weight'),
      imgSize: c.int('image_size', 224),
      inChans: c.agree('num_channels', patch[1]!, 'embeddings.patch_embeddings.weight'),
      lnEps: Math.fround(c.num('layer_norm_eps', 1e-5)),
      act,
      nReg,
      ffnKind: gated ? 'swiglu' : 'mlp',
      qkvBias,
      ropeBase: c.num('rope_theta', DINOV3_ROPE_BASE),
    });
    const pre = source.preprocessorConfig
      ? recipeFromHfProcessor(source.preprocessorConfig, 'preprocessor_config.json', 'image')
      : dinov3Recipe(enc.imgSize, false);
    return { parts: { family: 'dinov3', name: modelName(source), enc, pre }, map, sourceEntry: null, notes: [] };
  },
};
