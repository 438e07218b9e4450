import { closeSync, openSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forgeHparams, forgeModel, forgeModelBytes } from '../src/forge/forge.js';
import { GgmlType } from '../src/ggml-types.js';
import { readGgufFromBuffer } from '../src/gguf/reader.js';
import { FAMILIES } from '../src/schema/families.js';
import { FAMILY_TRAITS } from '../src/schema/family/registry.js';
import { KEYS } from '../src/schema/keys.js';
import { parseHparams } from '../src/schema/parse-hparams.js';
import { expectedTensors } from '../src/schema/tensors.js';
import { hparamsToMetadata } from '../src/schema/to-metadata.js';
import { loadModelSpec } from '../src/validate/validate-model.js';
import { HEADER_WINDOW, load } from './helpers.js';

describe('forge: a valid tiny model per family', () => {
  it.each(FAMILIES)('%s loads and its ModelSpec matches the forged hparams', (family) => {
    const f = forgeModelBytes(family);
    const { spec, source } = load(f.bytes);
    const { tensors: _t, header: _h, ...hparams } = spec;
    expect(hparams).toEqual(f.hparams);
    expect([...spec.tensors.keys()]).toEqual(expectedTensors(f.hparams).map((t) => t.name));
    expect(Math.max(...source.reads.map((r) => r.length))).toBeLessThanOrEqual(HEADER_WINDOW);
    const traits = FAMILY_TRAITS[family];
    expect(spec.enc.pos).toBe(traits.pos);
    expect(spec.pred?.kind ?? null).toBe(family === 'vjepa2_1' || family === 'vjepa2' ? 'masked' : family === 'lewm' ? 'action' : null);
  });

  it('every family table uses only names under enc./pred./head. shorter than ggml allows', () => {
    for (const family of FAMILIES) {
      for (const t of expectedTensors(forgeHparams(family, { predictor: true, head: FAMILY_TRAITS[family].head !== null }))) {
        expect(t.name).toMatch(/^(enc|pred|head)\.[a-z0-9_.]+$/);
        expect(Buffer.byteLength(t.name)).toBeLessThan(64);
      }
    }
  });

  it('writes to disk and loads by path and by fd', () => {
    const f = forgeModel('vjepa2');
    expect(new Uint8Array(readFileSync(f.path))).toEqual(f.bytes);
    const spec = loadModelSpec(f.path);
    expect(spec.family).toBe('vjepa2');
    expect(spec.labels).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
    expect(spec.head).toMatchObject({ kind: 'attentive', nClasses: 5, depth: 1 });
    const fd = openSync(f.path, 'r');
    try {
      expect(loadModelSpec(fd).tensors).toEqual(spec.tensors);
    } finally {
      closeSync(fd);
    }
  });

  it('is deterministic per seed and differs across seeds', () => {
    expect(forgeModelBytes('lewm', { seed: 7 }).bytes).toEqual(forgeModelBytes('lewm', { seed: 7 }).bytes);
    expect(forgeModelBytes('lewm', { seed: 7 }).bytes).not.toEqual(forgeModelBytes('lewm', { seed: 8 }).bytes);
  });

  it.each([GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0])('matmulType %i gives a loadable model with quantized matmuls', (type) => {
    const f = forgeModelBytes('vjepa2', { matmulType: type, tensorType: {} });
    const { spec } = load(f.bytes);
    expect(spec.tensors.get('enc.blk.0.attn.qkv.weight')!.type).toBe(type);
    expect(spec.tensors.get('enc.blk.0.attn.qkv.bias')!.type).toBe(GgmlType.F32);
  });

  it('q8_0 forged weights dequantise close to the f32 ones', () => {
    const f32 = forgeModelBytes('ijepa');
    const q8 = forgeModelBytes('ijepa', { tensorType: { 'enc.blk.0.ffn.fc1.weight': GgmlType.Q8_0 } });
    const a = readGgufFromBuffer(f32.bytes).tensorIndex.get('enc.blk.0.ffn.fc1.weight')!;
    const b = readGgufFromBuffer(q8.bytes).tensorIndex.get('enc.blk.0.ffn.fc1.weight')!;
    const ref = new Float32Array(f32.bytes.slice(a.offset, a.offset + a.nbytes).buffer);
    const view = new DataView(q8.bytes.buffer, q8.bytes.byteOffset + b.offset, b.nbytes);
    const f16 = (h: number) => (h & 0x8000 ? -1 : 1) * 2 ** (((h >> 10) & 0x1f) - 15) * (1 + (h & 0x3ff) / 1024);
    let worst = 0;
    for (let i = 0; i < ref.length; i++) {
      const blk = Math.floor(i / 32);
      const d = f16(view.getUint16(blk * 34, true));
      worst = Math.max(worst, Math.abs(view.getInt8(blk * 34 + 2 + (i % 32)) * d - ref[i]));
    }
    expect(worst).toBeLessThan(0.002);
  });

  it('the edit knob derives a consistent bigger model', () => {
    const f = forgeModelBytes('hfvit', { edit: (h) => ({ ...h, enc: { ...h.enc, nLayer: 5 } }) });
    expect(load(f.bytes).spec.enc.nLayer).toBe(5);
  });
});

describe('schema', () => {
  it('hparamsToMetadata is the inverse of parseHparams for every family', () => {
    for (const family of FAMILIES) {
      const h = forgeHparams(family);
      expect(parseHparams(new Map(hparamsToMetadata(h)))).toEqual(h);
    }
  });

  it('every key is documented in docs/gguf-schema.md with its type', () => {
    const doc = readFileSync(new URL('../../../docs/gguf-schema.md', import.meta.url), 'utf8');
    for (const k of KEYS) expect(doc, k.key).toContain(`| \`${k.key}\` | ${k.type.replace(/\[\]/, '[]')} |`);
  });

  it('every canonical tensor name pattern is documented', () => {
    const doc = readFileSync(new URL('../../../docs/gguf-schema.md', import.meta.url), 'utf8');
    for (const family of FAMILIES) {
      const h = forgeHparams(family, { predictor: true, head: FAMILY_TRAITS[family].head !== null });
      for (const t of expectedTensors(h)) {
        const pattern = t.name.replace(/\.\d+\./, '.{i}.').replace(/hier_norm\.\{i\}/, 'hier_norm.{k}');
        expect(doc, pattern).toContain(`\`${pattern}\``);
      }
    }
  });
});
