// A family is one definition (src/schema/family/): its traits, the encoder fields its checkpoints share and its
// tiny forge recipe. These check that the derived tables agree with the definitions and the traits with the defaults.
import { describe, expect, it } from 'vitest';
import { forgeHparams } from '../src/forge/forge.js';
import { defineFamily } from '../src/schema/family/define.js';
import { FAMILIES, type Family } from '../src/schema/family/registry.js';
import { FAMILY_DEFINITIONS, FAMILY_TRAITS } from '../src/schema/family/registry.js';
import { POSITION_SCHEMES } from '../src/schema/position-schemes.js';
import { expectedTensors, tensorNames } from '../src/schema/tensors.js';
import { parseHparams } from '../src/schema/parse-hparams.js';
import { hparamsToMetadata } from '../src/schema/to-metadata.js';
import { FAMILY_TENSOR_PARTS, type FamilyTensorPart } from '../src/schema/tensor-parts.js';
import type { ModelHparams } from '../src/schema/model-spec.js';

/** Whether a table shows the part: a tensor it adds, or (for the parts that remove one) that tensor's absence. */
const PART_SHOWS: Record<FamilyTensorPart, (names: Set<string>) => boolean> = {
  image_tokenizer: (n) => n.has('enc.patch_embed_img.weight'),
  cls_token: (n) => n.has('enc.cls_token'),
  reg_tokens: (n) => n.has('enc.reg_tokens'),
  layer_scale: (n) => n.has('enc.blk.0.ls1'),
  swiglu_ffn: (n) => n.has('enc.blk.0.ffn.w12.weight'),
  qkv_bias_optional: (n) => !n.has('enc.blk.0.attn.qkv.bias'),
  hier_norms: (n) => n.has('enc.hier_norm.0.weight'),
  final_norm_optional: (n) => !n.has('enc.norm.weight') && !n.has('enc.hier_norm.0.weight'),
  head_fc_norm: (n) => n.has('head.fc_norm.weight'),
};

/** The family's tiny model with every optional encoder tensor asked for, whether or not the family has it. */
function everythingAsked(family: Family, hierLayers: number[] | null): ModelHparams {
  const h = forgeHparams(family, { predictor: true, head: FAMILY_TRAITS[family].head !== null });
  const enc = {
    ...h.enc,
    nCls: 1,
    nReg: 2,
    imgTubeletSize: 1,
    hierLayers,
    layerScale: true,
    ffnKind: 'swiglu',
    qkvBias: false,
    finalNorm: false,
  } as const;
  const head = h.head?.kind === 'linear' ? { ...h.head, pool: 'mean' as const, lnEps: 1e-5 } : h.head;
  return { ...h, enc, head };
}

describe('family definitions', () => {
  it('lists every family once, in the order the fixtures and the fuzz corpus are made in', () => {
    expect([...FAMILIES]).toEqual(['ijepa', 'vjepa', 'vjepa2', 'vjepa2_1', 'hfvit', 'lewm', 'levjepa', 'videomae', 'vivit', 'dinov3']);
    for (const f of FAMILIES) {
      expect(FAMILY_DEFINITIONS[f].name).toBe(f);
      expect(FAMILY_TRAITS[f]).toBe(FAMILY_DEFINITIONS[f].traits);
    }
  });

  it.each(FAMILIES)("%s: the encoder defaults are what the family's traits allow", (family: Family) => {
    const { traits, encoder } = FAMILY_DEFINITIONS[family];
    expect(encoder.pos).toBe(traits.pos);
    expect(encoder.nCls).toBe(traits.nCls);
    expect(encoder.rope?.layout ?? null).toBe(traits.ropeLayout);
    expect(encoder.attnMode).toBe(traits.blockCausal ? 'block_causal' : 'full');
    expect(encoder.nReg === 0 || traits.registers).toBe(true);
    expect(!encoder.layerScale || traits.layerScale).toBe(true);
    // image families fix one frame in a tubelet of 1; a video mapping must say its clip
    expect(encoder.tubeletSize).toBe(traits.video ? undefined : 1);
    expect(encoder.nFrames).toBe(traits.video ? undefined : 1);
  });

  it.each(FAMILIES)('%s: the forged tiny model keeps the definition where the recipe does not override it', (family: Family) => {
    const { encoder, tiny } = FAMILY_DEFINITIONS[family];
    const enc = forgeHparams(family).enc;
    const kept = (['pos', 'rope', 'nCls', 'attnMode', 'ffnKind', 'qkvBias', 'posInterpOffset', 'finalNorm'] as const).filter(
      (k) => tiny.encoder?.[k] === undefined,
    );
    for (const k of kept) expect(enc[k], k).toEqual(encoder[k]);
  });

  it('defineFamily makes a new family from its traits and tensor parts alone, and the schema refuses what the traits forbid', () => {
    const clipFamily = defineFamily({ name: 'example', traits: { pos: 'rope3d', ropeLayout: 'tiled', video: true }, tensors: ['cls_token'] });
    expect(clipFamily.traits.head).toBeNull();
    expect(clipFamily.traits.nCls).toBe(1);
    expect(clipFamily.traits.registers).toBe(false);
    expect(clipFamily.graph).toEqual({ tokenize: 'patch', end: 'final_norm' });
    expect(clipFamily.releasedHeads).toEqual({});
    expect(clipFamily.encoder).toEqual({
      pos: 'rope3d',
      rope: { layout: 'tiled', theta: 10000, interpolate: false, refGrid: null },
      nCls: 1,
      nReg: 0,
      layerScale: false,
      attnMode: 'full',
      ffnKind: 'mlp',
      qkvBias: true,
      posInterpOffset: 0,
      finalNorm: true,
      imgTubeletSize: null,
      hierLayers: null,
    });
    // negative control: an ijepa encoder given vjepa2's position scheme is not an ijepa model
    const h = forgeHparams('ijepa');
    expect(() => parseHparams(new Map(hparamsToMetadata(h)))).not.toThrow();
    const wrong = { ...h, enc: { ...h.enc, pos: FAMILY_DEFINITIONS.vjepa2.encoder.pos, rope: FAMILY_DEFINITIONS.vjepa2.encoder.rope } };
    expect(() => parseHparams(new Map(hparamsToMetadata(wrong)))).toThrow(/jepa\.enc\.pos = 'rope3d' but the ijepa family uses 'sincos2d'/);
  });

  it.each(FAMILIES)('%s: the table has exactly the tensor parts the family declares, whatever the hparams ask', (family: Family) => {
    const declared = new Set(FAMILY_DEFINITIONS[family].tensors);
    const withHier = new Set(expectedTensors(everythingAsked(family, [0, 1])).map((t) => t.name));
    const plain = new Set(expectedTensors(everythingAsked(family, null)).map((t) => t.name));
    for (const part of FAMILY_TENSOR_PARTS) {
      if (part === 'head_fc_norm' && FAMILY_TRAITS[family].head !== 'linear') continue;
      expect(PART_SHOWS[part](part === 'hier_norms' ? withHier : plain), part).toBe(declared.has(part));
    }
  });

  it.each(FAMILIES)('%s: the graph stages it names are those of its tensor parts', (family: Family) => {
    const { tensors, graph } = FAMILY_DEFINITIONS[family];
    expect(graph.tokenize === 'modality_tokenizer').toBe(tensors.includes('image_tokenizer'));
    expect(graph.end === 'hierarchy_norms').toBe(tensors.includes('hier_norms'));
  });

  it("a mean-pooled linear head is VideoMAE's (head.fc_norm): ViViT's reads its CLS", () => {
    const h = forgeHparams('vivit', { head: true });
    expect(h.head).toMatchObject({ kind: 'linear', pool: 'first' });
    expect(() => parseHparams(new Map(hparamsToMetadata(h)))).not.toThrow();
    const mean = { ...h, head: { kind: 'linear' as const, nClasses: 5, pool: 'mean' as const, lnEps: 1e-5 } };
    expect(() => parseHparams(new Map(hparamsToMetadata(mean)))).toThrow(/jepa\.head\.pool = 'mean' but the vivit head has no head\.fc_norm/);
    const videomae = forgeHparams('videomae', { head: true });
    expect(videomae.head).toMatchObject({ kind: 'linear', pool: 'mean' });
    expect(() => parseHparams(new Map(hparamsToMetadata(videomae)))).not.toThrow();
  });

  it.each(FAMILIES)("%s: the position scheme's declaration is what its tensor table holds", (family: Family) => {
    const h = forgeHparams(family);
    const scheme = POSITION_SCHEMES[h.enc.pos];
    const table = expectedTensors(h).find((t) => t.name === tensorNames.encPosEmbed);
    expect(table !== undefined).toBe(scheme.table);
    expect(scheme.table).toBe(scheme.rotary === null);
    if (table) expect(table.shape).toEqual([h.enc.embedDim, (scheme.clsRows ? h.enc.nCls : 0) + h.enc.nPatches]);
  });
});
