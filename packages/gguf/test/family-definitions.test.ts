// A family is one definition (src/schema/family/): its traits, the encoder fields its checkpoints share and its
// tiny forge recipe. These check that the derived tables agree with the definitions and the traits with the defaults.
import { describe, expect, it } from 'vitest';
import { forgeHparams } from '../src/forge/forge.js';
import { defineFamily } from '../src/schema/family/define.js';
import { FAMILIES, type Family } from '../src/schema/families.js';
import { FAMILY_DEFINITIONS, FAMILY_TRAITS } from '../src/schema/family/registry.js';
import { POSITION_SCHEMES } from '../src/schema/position-schemes.js';
import { expectedTensors, tensorNames } from '../src/schema/tensors.js';
import { parseHparams } from '../src/schema/parse-hparams.js';
import { hparamsToMetadata } from '../src/schema/to-metadata.js';

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

  it('defineFamily makes a new family from its traits alone, and the schema refuses what the traits forbid', () => {
    const clipFamily = defineFamily({ name: 'example', traits: { pos: 'rope3d', ropeLayout: 'tiled', video: true, nCls: 1 } });
    expect(clipFamily.traits.head).toBeNull();
    expect(clipFamily.traits.registers).toBe(false);
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

  it.each(FAMILIES)("%s: the position scheme's declaration is what its tensor table holds", (family: Family) => {
    const h = forgeHparams(family);
    const scheme = POSITION_SCHEMES[h.enc.pos];
    const table = expectedTensors(h).find((t) => t.name === tensorNames.encPosEmbed);
    expect(table !== undefined).toBe(scheme.table);
    expect(scheme.table).toBe(scheme.rotary === null);
    if (table) expect(table.shape).toEqual([h.enc.embedDim, (scheme.clsRows ? h.enc.nCls : 0) + h.enc.nPatches]);
  });
});
