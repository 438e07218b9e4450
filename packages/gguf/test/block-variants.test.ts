// jepa.enc.ffn_kind and jepa.enc.qkv_bias: forged hfvit models with the SwiGLU MLP and without the qkv bias
// load with the tensors the schema derives; files that contradict the keys, or use them off hfvit, are refused.
import { describe, expect, it } from 'vitest';
import { forgeModelBytes, type ForgeKnobs } from '../src/forge/forge.js';
import { gv } from '../src/gguf/value.js';
import type { Family } from '../src/schema/family/registry.js';
import type { ModelHparams } from '../src/schema/model-spec.js';
import { expectRefused, load } from './helpers.js';

const swiglu = (h: ModelHparams): ModelHparams => ({ ...h, enc: { ...h.enc, ffnKind: 'swiglu', act: 'silu', ffnDim: 48 } });
const noBias = (h: ModelHparams): ModelHparams => ({ ...h, enc: { ...h.enc, qkvBias: false } });
const bytes = (family: Family, knobs: ForgeKnobs) => forgeModelBytes(family, knobs).bytes;

describe('block variants', () => {
  it('a SwiGLU hfvit has w12 [D, 2h] and w3 [h, D] in place of fc1 / fc2', () => {
    const { spec } = load(bytes('hfvit', { edit: swiglu }));
    expect([spec.enc.ffnKind, spec.enc.ffnDim, spec.enc.act]).toEqual(['swiglu', 48, 'silu']);
    const ffn = [...spec.tensors.values()].filter((t) => t.name.startsWith('enc.blk.0.ffn.'));
    expect(ffn.map((t) => [t.name, t.shape])).toEqual([
      ['enc.blk.0.ffn.w12.weight', [32, 96]],
      ['enc.blk.0.ffn.w12.bias', [96]],
      ['enc.blk.0.ffn.w3.weight', [48, 32]],
      ['enc.blk.0.ffn.w3.bias', [32]],
    ]);
  });

  it('an hfvit without qkv bias has attn.qkv.weight only', () => {
    const { spec } = load(bytes('hfvit', { edit: noBias }));
    expect(spec.enc.qkvBias).toBe(false);
    expect([...spec.tensors.keys()].filter((n) => n.startsWith('enc.blk.1.attn.qkv'))).toEqual(['enc.blk.1.attn.qkv.weight']);
  });

  it('absent keys mean the plain block, and explicit defaults are accepted on any family', () => {
    const { spec } = load(bytes('vjepa2', { metadata: { 'jepa.enc.ffn_kind': gv.str('mlp'), 'jepa.enc.qkv_bias': gv.bool(true) } }));
    expect([spec.enc.ffnKind, spec.enc.qkvBias]).toEqual(['mlp', true]);
    expect([load(bytes('hfvit', {})).spec.enc.ffnKind, load(bytes('hfvit', {})).spec.enc.qkvBias]).toEqual(['mlp', true]);
  });

  it.each([
    {
      what: 'swiglu off hfvit',
      file: () => bytes('ijepa', { edit: swiglu }),
      code: 'JEPA_INVARIANT',
      names: /jepa\.enc\.ffn_kind = 'swiglu' but the ijepa family's blocks have the plain MLP/,
    },
    {
      what: 'swiglu gated by gelu',
      file: () => bytes('hfvit', { edit: swiglu, metadata: { 'jepa.enc.act': gv.str('gelu') } }),
      code: 'JEPA_INVARIANT',
      names: /gates with SiLU, so jepa\.enc\.act must be 'silu', found 'gelu'/,
    },
    {
      what: 'qkv_bias false off hfvit',
      file: () => bytes('vjepa2', { edit: noBias }),
      code: 'JEPA_INVARIANT',
      names: /jepa\.enc\.qkv_bias is false but the vjepa2 family's attention always carries a qkv bias/,
    },
    {
      what: 'an unknown ffn kind',
      file: () => bytes('hfvit', { metadata: { 'jepa.enc.ffn_kind': gv.str('geglu') } }),
      code: 'JEPA_ENUM',
      names: /jepa\.enc\.ffn_kind.*'geglu' is not one of 'mlp', 'swiglu'/,
    },
    {
      what: 'qkv_bias stored as u32',
      file: () => bytes('hfvit', { metadata: { 'jepa.enc.qkv_bias': gv.u32(0) } }),
      code: 'JEPA_KEY_TYPE',
      names: /jepa\.enc\.qkv_bias' must be stored as bool/,
    },
    {
      what: 'fc1 / fc2 under ffn_kind swiglu',
      file: () => bytes('hfvit', { metadata: { 'jepa.enc.ffn_kind': gv.str('swiglu'), 'jepa.enc.act': gv.str('silu') } }),
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /enc\.blk\.0\.ffn\.fc1\.weight/,
    },
    {
      what: 'a qkv bias under qkv_bias false',
      file: () => bytes('hfvit', { metadata: { 'jepa.enc.qkv_bias': gv.bool(false) } }),
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /enc\.blk\.0\.attn\.qkv\.bias/,
    },
    {
      what: 'w12 with h rows instead of 2h',
      file: () => bytes('hfvit', { edit: swiglu, tensorShape: { 'enc.blk.1.ffn.w12.weight': [32, 48] } }),
      code: 'JEPA_TENSOR_SHAPE',
      names: /enc\.blk\.1\.ffn\.w12\.weight' has shape \[32, 48\], the hparams require \[32, 96\]/,
    },
    {
      what: 'a SwiGLU file missing w3',
      file: () => bytes('hfvit', { edit: swiglu, dropTensors: ['enc.blk.1.ffn.w3.weight'] }),
      code: 'JEPA_TENSOR_MISSING',
      names: /enc\.blk\.1\.ffn\.w3\.weight/,
    },
  ] as const)('refuses $what', ({ file, code, names }) => {
    expectRefused(file(), code, names);
  });
});
