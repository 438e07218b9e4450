// dino.txt's text section (jepa.text.*): absent on every earlier file; present, it round-trips with its tensors (the
// vision head's align.* and the text tower's text.*) and is refused where it contradicts itself or the family.
import { describe, expect, it } from 'vitest';
import { forgeModelBytes } from '../src/forge/forge.js';
import { gv } from '../src/gguf/value.js';
import type { ModelHparams, TextHparams } from '../src/schema/model-spec.js';
import { expectRefused, load } from './helpers.js';

const f32 = Math.fround;
const MERGES = ['i n', 't h', 'a n'];

function withText(h: ModelHparams): ModelHparams {
  const text: TextHparams = {
    embedDim: 16,
    nLayer: 2,
    nHead: 2,
    headDim: 8,
    ffnDim: 64,
    context: 77,
    lnEps: f32(1e-5),
    act: 'gelu',
    outDim: 2 * h.enc.embedDim,
    logitScale: f32(4.6),
    merges: MERGES,
    vocabSize: 512 + MERGES.length + 2,
    startId: 512 + MERGES.length,
    endId: 512 + MERGES.length + 1,
    visionNLayer: 2,
    visionFfnDim: 64,
    visionLnEps: f32(1e-5),
  };
  return { ...h, text };
}

const dinotxt = (metadata = {}) => forgeModelBytes('dinov3', { edit: withText, metadata }).bytes;

describe('jepa.text.*', () => {
  it('round-trips on dinov3 with the vision head and text tower tensors', () => {
    const { spec } = load(dinotxt());
    expect(spec.text).toMatchObject({ embedDim: 16, nLayer: 2, nHead: 2, context: 77, merges: MERGES, vocabSize: 517, startId: 515, endId: 516 });
    const t = spec.tensors;
    expect(t.get('text.token_embd')!.shape).toEqual([16, 517]);
    expect(t.get('text.pos_embd')!.shape).toEqual([16, 77]);
    expect(t.get('text.proj.weight')!.shape).toEqual([16, 2 * spec.enc.embedDim]);
    expect(t.has('text.proj.bias')).toBe(false);
    expect(t.has('text.blk.0.attn.qkv.bias')).toBe(false);
    expect(t.has('text.blk.0.ls1')).toBe(false);
    expect(t.has('align.blk.1.ffn.w12.weight')).toBe(true);
    expect(t.has('align.blk.1.ls2')).toBe(true);
    expect(t.has('align.blk.0.attn.qkv.bias')).toBe(false);
    expect(t.get('align.norm.weight')!.shape).toEqual([spec.enc.embedDim]);
  });

  it('is absent from every other file', () => {
    for (const family of ['dinov3', 'hfvit', 'vjepa2'] as const) expect(load(forgeModelBytes(family).bytes).spec.text).toBeNull();
  });

  it.each([
    {
      what: 'a text section on another family',
      file: () => forgeModelBytes('hfvit', { edit: withText }).bytes,
      code: 'JEPA_INVARIANT',
      names: /jepa\.text\.embed_dim is set but hfvit models have no text side/,
    },
    {
      what: 'an end id that is not the last',
      file: () => dinotxt({ 'jepa.text.end_id': gv.u32(3) }),
      code: 'JEPA_INVARIANT',
      names: /jepa\.text\.end_id 3 must be the last id, 516/,
    },
    {
      what: 'a merge that is not two pieces',
      file: () => dinotxt({ 'jepa.text.merges': gv.strs(['i n', 'thx', 'a n']) }),
      code: 'JEPA_INVARIANT',
      names: /jepa\.text\.merges\[1\]/,
    },
    {
      what: 'an out_dim other than 2·D',
      file: () => dinotxt({ 'jepa.text.out_dim': gv.u32(7) }),
      code: 'JEPA_INVARIANT',
      names: /jepa\.text\.out_dim 7 must be 2·jepa\.enc\.embed_dim/,
    },
    { what: 'a missing context', file: () => dinotxt({ 'jepa.text.context': null }), code: 'JEPA_KEY_MISSING', names: /jepa\.text\.context/ },
  ] as const)('refuses $what', ({ file, code, names }) => {
    expectRefused(file(), code, names);
  });
});
