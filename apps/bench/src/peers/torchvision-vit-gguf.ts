// torchvision's ViT-B/16 weights (as scripts/bench/export_vit_b16.py saves them) written as an
// hfvit GGUF, so the engine and onnxruntime run the very same weights.
import { openCheckpoint } from '@jepa/convert';
import { GgmlType, GgufWriter, expectedTensors, forgeHparams, hparamsToMetadata, tensorNames, type ModelHparams } from '@jepa/gguf';

const LAYERS = 12;

function sourceName(name: string): string {
  const blk = /^enc\.blk\.(\d+)\.(.+)$/.exec(name);
  if (blk) {
    const [, i, rest] = blk;
    const base = `encoder.layers.encoder_layer_${i}.`;
    const map: Record<string, string> = {
      'ln1.weight': 'ln_1.weight',
      'ln1.bias': 'ln_1.bias',
      'attn.qkv.weight': 'self_attention.in_proj_weight',
      'attn.qkv.bias': 'self_attention.in_proj_bias',
      'attn.proj.weight': 'self_attention.out_proj.weight',
      'attn.proj.bias': 'self_attention.out_proj.bias',
      'ln2.weight': 'ln_2.weight',
      'ln2.bias': 'ln_2.bias',
      'ffn.fc1.weight': 'mlp.0.weight',
      'ffn.fc1.bias': 'mlp.0.bias',
      'ffn.fc2.weight': 'mlp.3.weight',
      'ffn.fc2.bias': 'mlp.3.bias',
    };
    return base + map[rest!]!;
  }
  const top: Record<string, string> = {
    [`${tensorNames.encPatchEmbed}.weight`]: 'conv_proj.weight',
    [`${tensorNames.encPatchEmbed}.bias`]: 'conv_proj.bias',
    [tensorNames.encClsToken]: 'class_token',
    [tensorNames.encPosEmbed]: 'encoder.pos_embedding',
    [`${tensorNames.encNorm}.weight`]: 'encoder.ln.weight',
    [`${tensorNames.encNorm}.bias`]: 'encoder.ln.bias',
  };
  return top[name]!;
}

export function vitB16Hparams(): ModelHparams {
  return forgeHparams('hfvit', {
    head: false,
    edit: (h) => ({
      ...h,
      name: 'torchvision ViT-B/16 (seeded random weights, peer benchmark)',
      enc: {
        ...h.enc,
        embedDim: 768,
        nLayer: LAYERS,
        nHead: 12,
        headDim: 64,
        ffnDim: 3072,
        patchSize: 16,
        imgSize: 224,
        gridSize: 14,
        nPatches: 196,
        nReg: 0,
        layerScale: false,
        lnEps: Math.fround(1e-6),
      },
      // torchvision's ViT_B_16 eval transforms: Resize(256, bilinear), CenterCrop(224), ImageNet mean/std.
      pre: { ...h.pre, resize: { mode: 'short', size: 256 }, crop: 224, resample: 'bilinear', cropRounding: 'round' },
    }),
  });
}

export async function writeVitB16Gguf(safetensors: string, out: string): Promise<void> {
  const h = vitB16Hparams();
  const ckpt = await openCheckpoint(safetensors);
  const w = GgufWriter.toFile(out);
  try {
    for (const [k, v] of hparamsToMetadata(h)) w.setMetadata(k, v);
    const specs = expectedTensors(h);
    for (const t of specs) w.addTensor(t.name, GgmlType.F32, t.shape);
    for (const t of specs) {
      const ref = ckpt.tensors.get(sourceName(t.name));
      if (!ref) throw new Error(`torchvision checkpoint has no ${sourceName(t.name)} for ${t.name}`);
      w.writeTensorData(await ref.readAsFloat32());
    }
    w.finish();
  } catch (err) {
    w.abort();
    throw err;
  } finally {
    ckpt.close();
  }
}
