import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forgeHparams } from '../src/forge/forge.js';
import { GGML_TYPES } from '../src/ggml-types.js';
import { readGguf } from '../src/gguf/reader.js';
import type { GgufValue } from '../src/gguf/value.js';
import { loadModelSpec } from '../src/validate/validate-model.js';
import { allTypesFile, forgedFixtures } from '../scripts/fixture-sets.js';

const root = new URL('../../../fixtures/gguf/', import.meta.url);
const at = (p: string) => new URL(p, root).pathname;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const json = (p: string) => JSON.parse(readFileSync(at(p), 'utf8'));

interface PyField {
  types: string[];
  value: unknown;
}
interface PyTensor {
  name: string;
  type: number;
  shape: number[];
  offset: number;
  nbytes: number;
  sha256: string;
}
interface PyFile {
  alignment: number;
  dataOffset: number;
  fields: Record<string, PyField>;
  tensors: PyTensor[];
  rewrittenSha256?: string;
}

/** Our value as gguf-py reports it: type chain, and leaves flattened, integers as decimal strings. */
function asGgufPy(v: GgufValue): PyField {
  const chain: string[] = [];
  const leaves: unknown[] = [];
  const walk = (x: GgufValue, depth: number) => {
    if (depth === chain.length) chain.push(x.type === 'array' ? 'array' : x.type);
    if (x.type !== 'array') return leaves.push(x.value);
    if (x.itemType === 'array') {
      for (const e of x.value as GgufValue[]) walk(e, depth + 1);
      if ((x.value as GgufValue[]).length === 0) chain.push('array');
    } else {
      if (depth + 1 === chain.length) chain.push(x.itemType);
      leaves.push(...Array.from(x.value as ArrayLike<unknown>));
    }
  };
  walk(v, 0);
  return { types: chain, value: v.type === 'array' ? leaves.map(norm) : norm(leaves[0]) };
}

function norm(x: unknown): unknown {
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'number' && Number.isInteger(x)) return String(x);
  return x;
}

function normPy(f: PyField): PyField {
  return { types: f.types, value: Array.isArray(f.value) ? f.value.map(norm) : norm(f.value) };
}

describe('committed interop fixtures', () => {
  it('fixtures/gguf/ts is what this package writes today (regenerate with pnpm fixtures:gguf)', () => {
    const expected = new Map<string, Uint8Array>([
      ['all-types.gguf', allTypesFile(true)],
      ['c-reader-all-types.gguf', allTypesFile(false)],
      ...forgedFixtures(),
    ]);
    const committed = readdirSync(at('ts'))
      .filter((n) => n.endsWith('.gguf'))
      .sort();
    expect(committed).toEqual([...expected.keys()].sort());
    for (const [name, bytes] of expected) expect(sha256(readFileSync(at(`ts/${name}`))), name).toBe(sha256(bytes));
  });

  it('the manifest for the C reader matches what our reader sees', () => {
    const manifest = json('ts/manifest.json') as Record<string, { sha256: string; dataOffset: number; tensors: PyTensor[] }>;
    for (const [name, m] of Object.entries(manifest)) {
      const h = readGguf(at(`ts/${name}`));
      expect(m.dataOffset).toBe(h.dataOffset);
      expect(m.tensors.map((t) => [t.name, t.type, t.shape, t.offset, t.nbytes])).toEqual(
        h.tensors.map((t) => [t.name, t.type, [...t.shape], t.offset, t.nbytes]),
      );
    }
  });
});

describe('interop with gguf-py (llama.cpp 80fb11a)', () => {
  const seen = json('py/read-by-gguf-py.json') as Record<string, PyFile>;

  it('gguf-py read every file we wrote', () => {
    expect(Object.keys(seen).sort()).toEqual(
      readdirSync(at('ts'))
        .filter((n) => n.endsWith('.gguf'))
        .sort(),
    );
  });

  it.each(Object.keys(seen))('gguf-py sees in %s exactly the metadata and tensor table we wrote', (name) => {
    const py = seen[name];
    const bytes = new Uint8Array(readFileSync(at(`ts/${name}`)));
    const h = readGguf(at(`ts/${name}`));
    expect(py.alignment).toBe(h.alignment);
    expect(py.dataOffset).toBe(h.dataOffset);
    expect(Object.keys(py.fields)).toEqual([...h.metadata.keys()]);
    for (const [key, v] of h.metadata) expect(normPy(py.fields[key]), key).toEqual(asGgufPy(v));
    // gguf-py sizes q8_1 blocks as 40 bytes (ggml: 36), so it misjudges that one tensor's length.
    const Q8_1 = 9;
    expect(py.tensors).toEqual(
      h.tensors.map((t, i) => ({
        name: t.name,
        type: t.type,
        shape: [...t.shape],
        offset: t.offset,
        nbytes: t.type === Q8_1 ? (t.nbytes / 36) * 40 : t.nbytes,
        sha256: t.type === Q8_1 ? py.tensors[i]!.sha256 : sha256(bytes.subarray(t.offset, t.offset + t.nbytes)),
      })),
    );
  });

  it('gguf-py re-writing each forged model from what it read gives our file byte for byte', () => {
    const forged = Object.entries(seen).filter(([n]) => n.startsWith('forge-'));
    expect(forged.length).toBe(12);
    for (const [name, py] of forged) expect(py.rewrittenSha256, name).toBe(sha256(readFileSync(at(`ts/${name}`))));
    expect(sha256(readFileSync(at('py/rewritten-forge-vjepa2_1.gguf')))).toBe(seen['forge-vjepa2_1.gguf'].rewrittenSha256);
  });

  it('a jepa model written by gguf-py loads and validates', () => {
    const spec = loadModelSpec(at('py/rewritten-forge-vjepa2_1.gguf'));
    const { tensors: _t, header: _h, ...hparams } = spec;
    expect(hparams).toEqual(forgeHparams('vjepa2_1'));
  });

  it('reads the file gguf-py wrote with every metadata type and every tensor type', () => {
    const expected = json('py/gguf-py-all-types.json') as {
      metadata: Record<string, { type: string; value: unknown }>;
      tensors: { name: string; sha256: string; nbytes: number }[];
    };
    const path = at('py/gguf-py-all-types.gguf');
    const bytes = new Uint8Array(readFileSync(path));
    const h = readGguf(path);
    expect([...h.metadata.keys()]).toEqual(Object.keys(expected.metadata));
    for (const [key, e] of Object.entries(expected.metadata)) {
      const v = h.metadata.get(key)!;
      expect(v.type === 'array' ? `array:${v.itemType}` : v.type, key).toBe(e.type);
      const ours =
        v.type === 'array' && v.itemType === 'array'
          ? (v.value as GgufValue[]).map((a) => Array.from(a.value as ArrayLike<unknown>, norm))
          : v.type === 'array'
            ? Array.from(v.value as ArrayLike<unknown>, norm)
            : norm(v.value);
      const theirs = Array.isArray(e.value) ? e.value.map((x) => (Array.isArray(x) ? x.map(norm) : norm(x))) : norm(e.value);
      expect(ours, key).toEqual(theirs);
    }
    expect(h.tensors.map((t) => t.name)).toEqual(expected.tensors.map((t) => t.name));
    for (const e of expected.tensors) {
      const t = h.tensorIndex.get(e.name)!;
      expect(t.nbytes, e.name).toBe(e.nbytes);
      expect(sha256(bytes.subarray(t.offset, t.offset + t.nbytes)), e.name).toBe(e.sha256);
    }
  });

  // gguf-py's table at this commit sizes a q8_1 block as 40 bytes; ggml (gguf.cpp, the loader) says 36,
  // and @jepa/native's tests check this table against ggml's own type traits for every id.
  it("our ggml type table equals gguf-py's GGML_QUANT_SIZES for every type it knows, but q8_1", () => {
    const expected = json('py/gguf-py-all-types.json') as { quantSizes: Record<string, [number, number]>; quantIds: Record<string, number> };
    const known = GGML_TYPES.filter((t) => t.supported);
    expect(known.length).toBe(Object.keys(expected.quantIds).length);
    for (const [name, id] of Object.entries(expected.quantIds)) {
      const t = GGML_TYPES[id];
      expect(t.name.toLowerCase(), name).toBe(name);
      if (name === 'q8_1') expect([t.blockSize, t.typeSize, ...expected.quantSizes[name]!]).toEqual([32, 36, 32, 40]);
      else expect([t.blockSize, t.typeSize], name).toEqual(expected.quantSizes[name]);
    }
  });
});
