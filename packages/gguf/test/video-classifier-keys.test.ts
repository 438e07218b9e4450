// The keys the VideoMAE and ViViT families brought into schema v1: jepa.enc.pos sincos1d, jepa.enc.final_norm,
// the linear head (jepa.head.pool) and jepa.pre.offset. Absent, each means what every earlier file is; each is
// refused where the family's traits say it cannot apply.
import { describe, expect, it } from 'vitest';
import { forgeModelBytes } from '../src/forge/forge.js';
import { gv } from '../src/gguf/value.js';
import { hparamsToMetadata } from '../src/schema/to-metadata.js';
import { expectRefused, load } from './helpers.js';

describe('videomae and vivit keys', () => {
  it('videomae: a 1-D sinusoid table, no final norm, a mean-pooled linear head with its fc_norm', () => {
    const { spec } = load(forgeModelBytes('videomae').bytes);
    expect([spec.enc.pos, spec.enc.finalNorm]).toEqual(['sincos1d', false]);
    expect(spec.head).toEqual({ kind: 'linear', nClasses: 5, pool: 'mean', lnEps: Math.fround(1e-5) });
    const names = [...spec.tensors.keys()];
    expect(names).toContain('head.fc_norm.weight');
    expect(names).not.toContain('enc.norm.weight');
    expect(spec.tensors.get('enc.pos_embed')!.shape).toEqual([32, 8]);
  });

  it('vivit: its head reads token 0 and has no fc_norm or ln_eps', () => {
    const { spec } = load(forgeModelBytes('vivit').bytes);
    expect(spec.head).toEqual({ kind: 'linear', nClasses: 5, pool: 'first', lnEps: null });
    expect(hparamsToMetadata(spec).map(([k]) => k)).not.toContain('jepa.head.ln_eps');
  });

  it('every other family reads as before: final_norm, head.pool and pre.offset are never written for it', () => {
    for (const family of ['hfvit', 'vjepa2', 'vjepa'] as const) {
      const keys = hparamsToMetadata(load(forgeModelBytes(family).bytes).spec).map(([k]) => k);
      for (const k of ['jepa.enc.final_norm', 'jepa.head.pool', 'jepa.pre.offset']) expect(keys).not.toContain(k);
    }
  });

  it('round-trips an offset', () => {
    const { spec } = load(forgeModelBytes('vivit', { metadata: { 'jepa.pre.offset': gv.f32(-1) } }).bytes);
    expect(spec.pre.offset).toBe(-1);
  });

  it.each([
    {
      what: 'final_norm false on a family that always ends in enc.norm',
      file: () => forgeModelBytes('hfvit', { metadata: { 'jepa.enc.final_norm': gv.bool(false) } }).bytes,
      code: 'JEPA_INVARIANT',
      names: /jepa\.enc\.final_norm is false but the hfvit encoder always ends in enc\.norm/,
    },
    {
      what: 'a linear head on a family whose classifier is attentive',
      file: () => forgeModelBytes('vjepa2', { head: true, metadata: { 'jepa.head.kind': gv.str('linear') } }).bytes,
      code: 'JEPA_INVARIANT',
      names: /jepa\.head\.kind = 'linear' but the vjepa2 classifier is 'attentive'/,
    },
    {
      what: 'a pooler key on a linear head',
      file: () => forgeModelBytes('vivit', { metadata: { 'jepa.head.depth': gv.u32(0) } }).bytes,
      code: 'JEPA_KEY_UNUSED',
      names: /jepa\.head\.depth/,
    },
    {
      what: 'a mean-pooled head without the eps of its fc_norm',
      file: () => forgeModelBytes('videomae', { metadata: { 'jepa.head.ln_eps': null } }).bytes,
      code: 'JEPA_KEY_MISSING',
      names: /jepa\.head\.ln_eps/,
    },
    {
      what: 'an offset past ±1',
      file: () => forgeModelBytes('vivit', { metadata: { 'jepa.pre.offset': gv.f32(-2) } }).bytes,
      code: 'JEPA_RANGE',
      names: /jepa\.pre\.offset/,
    },
    {
      what: 'sincos1d on a family with another position scheme',
      file: () => forgeModelBytes('vjepa', { metadata: { 'jepa.enc.pos': gv.str('sincos1d') } }).bytes,
      code: 'JEPA_INVARIANT',
      names: /jepa\.enc\.pos = 'sincos1d' but the vjepa family uses 'sincos3d'/,
    },
  ] as const)('refuses $what', ({ file, code, names }) => {
    expectRefused(file(), code, names);
  });
});
