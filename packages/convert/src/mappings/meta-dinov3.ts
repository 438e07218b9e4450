// facebookresearch/dinov3 torch.hub files (dinov3_vit*16*_pretrain_{lvd1689m,sat493m}-HASH.pth: torch.save of a
// bare state dict in the repository's names) → family dinov3. The file records no config: the architecture comes
// from the tensors (head width = 4 · len(rope_embed.periods)), and the file name is only checked against them.
import { basename } from 'node:path';
import { DINOV3_ROPE_BASE, tensorNames } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { Source } from '../source.js';
import { mapEncoderBlocks, mapPatchEmbed, TIMM_BLOCK, type BlockNames } from './blocks.js';
import { DINOV3_LICENSE, dinov3Recipe, finishDinov3 } from './dinov3-common.js';
import { countBlocks } from './hparams.js';
import { modelName } from './naming.js';
import { TensorMap } from './tensor-map.js';
import type { Mapping } from './types.js';

const IGNORED = [
  /^mask_token$/, // masked-image-modelling only
  /^local_cls_norm\./, // the local crops' CLS norm of the SAT and 7B runs: "never used during eval"
];

const BLOCK: BlockNames = { ...TIMM_BLOCK, ls1: 'ls1.gamma', ls2: 'ls2.gamma', swigluIn: ['mlp.w1', 'mlp.w2'], swigluOut: 'mlp.w3' };

/** The hub builders' architectures (hub/backbones.py), by the name their files carry. */
const RELEASED: Record<string, { title: string; dim: number; depth: number; heads: number; swiglu: boolean }> = {
  vits16: { title: 'ViT-S/16', dim: 384, depth: 12, heads: 6, swiglu: false },
  vits16plus: { title: 'ViT-S+/16', dim: 384, depth: 12, heads: 6, swiglu: true },
  vitb16: { title: 'ViT-B/16', dim: 768, depth: 12, heads: 12, swiglu: false },
  vitl16: { title: 'ViT-L/16', dim: 1024, depth: 24, heads: 16, swiglu: false },
  vitl16plus: { title: 'ViT-L+/16', dim: 1024, depth: 24, heads: 16, swiglu: true },
  vith16plus: { title: 'ViT-H+/16', dim: 1280, depth: 32, heads: 20, swiglu: true },
  vit7b16: { title: 'ViT-7B/16', dim: 4096, depth: 40, heads: 32, swiglu: true },
};

const FILE_NAME = /^dinov3_(vit[a-z0-9]+)_pretrain_([a-z0-9]+)/i;

export function isMetaDinov3(source: Source): boolean {
  const names = source.checkpoint.tensors;
  return (
    source.checkpoint.format === 'torch-zip' &&
    names.has('rope_embed.periods') &&
    names.has('patch_embed.proj.weight') &&
    names.has('blocks.0.attn.qkv.weight')
  );
}

/** The period base the stored periods were made with: periods[k] = base^(2k / (headDim / 2)). */
function ropeBaseOf(periods: Float32Array): number {
  const headDim = 4 * periods.length;
  const base = periods.length > 1 ? periods[1]! ** (headDim / 4) : DINOV3_ROPE_BASE;
  periods.forEach((p, k) => {
    const expected = base ** ((2 * k) / (headDim / 2));
    if (!(Math.abs(p - expected) <= 1e-4 * expected))
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `'rope_embed.periods'[${k}] is ${p}, not base^(${2 * k}/${headDim / 2}) = ${expected.toPrecision(6)}: only the base-period RoPE of the released models is supported`,
      );
  });
  return periods.length > 1 ? Math.round(base * 1e4) / 1e4 : DINOV3_ROPE_BASE;
}

/** The released architecture the file name claims, checked against the tensors' own. */
function checkFileName(path: string, found: { dim: number; depth: number; heads: number; swiglu: boolean }): void {
  const arch = FILE_NAME.exec(basename(path))?.[1]?.toLowerCase();
  const known = arch === undefined ? undefined : RELEASED[arch];
  if (!known) return;
  const describe = (a: typeof found) => `width ${a.dim}, ${a.depth} blocks, ${a.heads} heads, ${a.swiglu ? 'SwiGLU' : 'MLP'}`;
  if (known.dim !== found.dim || known.depth !== found.depth || known.heads !== found.heads || known.swiglu !== found.swiglu)
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `${basename(path)}: the name says dinov3_${arch} (${known.title}: ${describe(known)}), but the tensors are ${describe(found)}`,
    );
}

export const metaDinov3: Mapping = {
  id: 'meta-dinov3',
  family: 'dinov3',
  layout: 'facebookresearch/dinov3 torch.hub .pth (torch zip pickle of the bare state dict)',
  license: () => DINOV3_LICENSE,
  ignored: IGNORED,
  async map(source, overrides) {
    const map = new TensorMap(source.checkpoint.tensors, IGNORED);
    const k = map.shapeOf('patch_embed.proj.weight');
    if (k.length !== 4)
      throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'patch_embed.proj.weight' is [${k.join(', ')}]; a dinov3 hub file has a Conv2d [D, C, P, P]`);
    const [embedDim, inChans, , patchSize] = k as [number, number, number, number];
    const periods = await map.ref('rope_embed.periods').readAsFloat32();
    map.consume('rope_embed.periods');
    const headDim = 4 * periods.length;
    if (headDim === 0 || embedDim % headDim !== 0)
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `'rope_embed.periods' has ${periods.length} entries, so heads of width ${headDim}, which do not divide the width ${embedDim}`,
      );
    const nHead = embedDim / headDim;
    if (overrides.nHead !== undefined && overrides.nHead !== nHead)
      throw new ConvertError(
        'CONVERT_BAD_OPTION',
        `--n-head ${overrides.nHead}, but 'rope_embed.periods' gives heads of width ${headDim}: ${nHead} heads`,
      );
    const nLayer = countBlocks(map.source.keys(), /^blocks\.(\d+)\./);
    const swiglu = map.has('blocks.0.mlp.w1.weight');
    const ffnDim = map.matrixShape(swiglu ? 'blocks.0.mlp.w1.weight' : 'blocks.0.mlp.fc1.weight')[0];
    const qkvBias = map.has('blocks.0.attn.qkv.bias');
    const nReg = map.has('storage_tokens') ? map.shapeOf('storage_tokens')[1]! : 0;
    checkFileName(source.checkpoint.path, { dim: embedDim, depth: nLayer, heads: nHead, swiglu });

    mapPatchEmbed(map, tensorNames.encPatchEmbed, 'patch_embed.proj');
    map.copy(tensorNames.encClsToken, 'cls_token', 'rows');
    if (nReg > 0) map.copy(tensorNames.encRegTokens, 'storage_tokens', 'rows');
    mapEncoderBlocks(map, nLayer, (i) => `blocks.${i}`, BLOCK, { swiglu, qkvBias: false });
    const masked = qkvBias && map.has('blocks.0.attn.qkv.bias_mask');
    if (qkvBias)
      for (let i = 0; i < nLayer; i++) {
        const bias = `blocks.${i}.attn.qkv.bias`;
        // LinearKMaskedBias: the bias times bias_mask at run time, which zeroes the key third
        const srcs = masked ? [bias, `blocks.${i}.attn.qkv.bias_mask`] : [bias];
        map.derive(`${tensorNames.encBlock(i)}.attn.qkv.bias`, [3 * embedDim], srcs, ([b, mask]) =>
          mask ? b!.map((v, j) => (mask[j] === 0 ? 0 : v * mask[j]!)) : b!,
        );
      }
    const enc = finishDinov3(map, {
      embedDim,
      nLayer,
      nHead,
      ffnDim,
      patchSize,
      imgSize: overrides.imgSize ?? 224,
      inChans,
      // norm_layer 'layernormbf16' in every hub builder
      lnEps: Math.fround(1e-5),
      act: swiglu ? 'silu' : 'gelu',
      nReg,
      ffnKind: swiglu ? 'swiglu' : 'mlp',
      qkvBias,
      ropeBase: ropeBaseOf(periods),
    });
    const satellite = /sat493m/i.test(basename(source.checkpoint.path));
    const notes = [`heads of width ${headDim} (4 × ${periods.length} rope periods): ${nHead} heads`];
    if (qkvBias && !masked) notes.push('no attn.qkv.bias_mask: the key bias is used as stored');
    if (satellite) notes.push('SAT-493M weights: the satellite mean and std');
    return {
      parts: { family: 'dinov3', name: modelName(source), enc, pre: dinov3Recipe(enc.imgSize, satellite) },
      map,
      sourceEntry: null,
      notes,
    };
  },
};
