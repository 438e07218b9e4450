// q8_row files: a matmul weight may be i8 when its `<name>.scale` companion (f32, [rows]) is there; every other
// shape of that is refused with a typed error naming the tensor, and a `.scale` of anything else stays unexpected.
import { describe, expect, it } from 'vitest';
import { forgeHparams, forgeModelBytes, type ForgeKnobs } from '../src/forge/forge.js';
import { GgmlType } from '../src/ggml-types.js';
import { FILE_TYPE_Q8_ROW, rowScaleName } from '../src/schema/file-types.js';
import type { Family } from '../src/schema/family/registry.js';
import { expectedTensors } from '../src/schema/tensors.js';
import { gv } from '../src/gguf/value.js';
import type { GgufErrorCode } from '../src/errors.js';
import { expectRefused, load } from './helpers.js';

const QKV = 'enc.blk.0.attn.qkv.weight'; // ijepa's tiny encoder: [32, 96]

/** Every matmul weight of `family` as i8 with its scales, as jepa-quantize's q8_row writes it. */
function q8RowKnobs(family: Family, knobs: ForgeKnobs = {}): ForgeKnobs {
  const matmuls = expectedTensors(forgeHparams(family, knobs)).filter((t) => t.role === 'matmul');
  return {
    matmulType: GgmlType.I8,
    metadata: { 'general.file_type': gv.u32(FILE_TYPE_Q8_ROW) },
    extraTensors: matmuls.map((t) => ({ name: rowScaleName(t.name), type: GgmlType.F32, shape: [t.shape[1]!] })),
    ...knobs,
  };
}

/** One i8 weight (qkv of block 0) and whatever companions `scales` says. */
function oneI8(scales: { name: string; type: number; shape: number[] }[], knobs: ForgeKnobs = {}): Uint8Array {
  return forgeModelBytes('ijepa', { tensorType: { [QKV]: GgmlType.I8 }, extraTensors: scales, ...knobs }).bytes;
}

describe('q8_row: i8 matmul weights with per-row f32 scales', () => {
  it.each(['ijepa', 'vjepa2', 'hfvit', 'lewm'] as const)('%s with every matmul weight i8 + .scale validates', (family) => {
    const { spec } = load(forgeModelBytes(family, q8RowKnobs(family)).bytes);
    expect(spec.fileType).toBe(FILE_TYPE_Q8_ROW);
    const matmuls = expectedTensors(spec).filter((t) => t.role === 'matmul');
    expect(matmuls.length).toBeGreaterThan(0);
    for (const t of matmuls) {
      expect(spec.tensors.get(t.name)!.type, t.name).toBe(GgmlType.I8);
      const scale = spec.tensors.get(rowScaleName(t.name))!;
      expect([scale.type, scale.shape], t.name).toEqual([GgmlType.F32, [t.shape[1]]]);
    }
  });

  it('one i8 weight among f32 ones validates', () => {
    const { spec } = load(oneI8([{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [96] }]));
    expect(spec.tensors.get(QKV)!.type).toBe(GgmlType.I8);
    expect(spec.tensors.get('enc.blk.0.attn.proj.weight')!.type).toBe(GgmlType.F32);
  });

  const refusals: { what: string; bytes: () => Uint8Array; code: GgufErrorCode; names: RegExp }[] = [
    {
      what: 'an i8 weight without its scales',
      bytes: () => oneI8([]),
      code: 'JEPA_TENSOR_DTYPE',
      names: /'enc\.blk\.0\.attn\.qkv\.weight' is i8 without 'enc\.blk\.0\.attn\.qkv\.weight\.scale'.*f32 row scales \[96\]/,
    },
    {
      what: 'an i8 weight with its scales, and scales of an f32 weight beside it',
      bytes: () =>
        oneI8([
          { name: `${QKV}.scale`, type: GgmlType.F32, shape: [96] },
          { name: 'enc.blk.0.attn.proj.weight.scale', type: GgmlType.F32, shape: [32] },
        ]),
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /attn\.proj\.weight\.scale.*belongs only to an i8 matmul weight/,
    },
    {
      what: 'scales in f16',
      bytes: () => oneI8([{ name: `${QKV}.scale`, type: GgmlType.F16, shape: [96] }]),
      code: 'JEPA_TENSOR_DTYPE',
      names: /qkv\.weight\.scale' is f16.*must be f32/,
    },
    {
      what: 'scales in i8',
      bytes: () => oneI8([{ name: `${QKV}.scale`, type: GgmlType.I8, shape: [96] }]),
      code: 'JEPA_TENSOR_DTYPE',
      names: /qkv\.weight\.scale' is i8/,
    },
    {
      what: 'one scale short',
      bytes: () => oneI8([{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [95] }]),
      code: 'JEPA_TENSOR_SHAPE',
      names: /qkv\.weight\.scale' has shape \[95\].*has 96 rows.*must be \[96\]/,
    },
    {
      what: 'one scale per input column (k) instead of per row',
      bytes: () => oneI8([{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [32] }]),
      code: 'JEPA_TENSOR_SHAPE',
      names: /qkv\.weight\.scale' has shape \[32\].*must be \[96\]/,
    },
    {
      what: 'scales stored as a 2-D tensor',
      bytes: () => oneI8([{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [96, 1] }]),
      code: 'JEPA_TENSOR_SHAPE',
      names: /qkv\.weight\.scale' has shape \[96, 1\]/,
    },
    {
      what: 'an i8 weight of the wrong width (its scales matching it)',
      bytes: () =>
        oneI8([{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [64] }], {
          tensorType: { [QKV]: GgmlType.I8 },
          tensorShape: { [QKV]: [32, 64] },
        }),
      code: 'JEPA_TENSOR_SHAPE',
      names: /'enc\.blk\.0\.attn\.qkv\.weight' has shape \[32, 64\].*\[32, 96\]/,
    },
    {
      what: 'scales of an f32 matmul weight',
      bytes: () => forgeModelBytes('ijepa', { extraTensors: [{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [96] }] }).bytes,
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /qkv\.weight\.scale.*not part of this model's schema/,
    },
    {
      what: 'scales of a q8_0 matmul weight',
      bytes: () =>
        forgeModelBytes('ijepa', {
          tensorType: { [QKV]: GgmlType.Q8_0 },
          extraTensors: [{ name: `${QKV}.scale`, type: GgmlType.F32, shape: [96] }],
        }).bytes,
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /qkv\.weight\.scale/,
    },
    {
      what: 'a norm weight in i8, even with scales',
      bytes: () =>
        forgeModelBytes('ijepa', {
          tensorType: { 'enc.norm.weight': GgmlType.I8 },
          extraTensors: [{ name: 'enc.norm.weight.scale', type: GgmlType.F32, shape: [1] }],
        }).bytes,
      code: 'JEPA_TENSOR_DTYPE',
      names: /'enc\.norm\.weight' is i8.*must be f32/,
    },
    {
      what: 'a bias in i8',
      bytes: () => forgeModelBytes('ijepa', { tensorType: { 'enc.blk.0.attn.qkv.bias': GgmlType.I8 } }).bytes,
      code: 'JEPA_TENSOR_DTYPE',
      names: /'enc\.blk\.0\.attn\.qkv\.bias' is i8.*must be f32/,
    },
    {
      what: 'scales of a tensor the schema does not name',
      bytes: () =>
        forgeModelBytes('ijepa', {
          extraTensors: [
            { name: 'enc.blk.0.attn.q.weight', type: GgmlType.I8, shape: [32, 32] },
            { name: 'enc.blk.0.attn.q.weight.scale', type: GgmlType.F32, shape: [32] },
          ],
        }).bytes,
      code: 'JEPA_TENSOR_UNEXPECTED',
      names: /enc\.blk\.0\.attn\.q\.weight/,
    },
  ];

  describe('refusals', () => {
    it.each(refusals.map((d) => [d.what, d] as const))('%s', (_, d) => {
      expectRefused(d.bytes(), d.code, d.names);
    });
    it.each(refusals.map((d) => [d.what, d] as const))('%s (plain reader, every value materialised)', (_, d) => {
      expectRefused(d.bytes(), d.code, d.names, true);
    });
  });
});
