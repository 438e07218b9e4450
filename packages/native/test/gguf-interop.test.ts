// ggml's own GGUF reader (gguf.cpp) against @jepa/gguf on the files @jepa/gguf writes.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readGguf, type GgufValue } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { ggufInfo } from '../src/index.js';

const dir = resolve(__dirname, '../../../fixtures/gguf/ts');
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, { cReaderAccepts: boolean }>;

const plain = (v: unknown): unknown =>
  typeof v === 'bigint'
    ? v.toString()
    : ArrayBuffer.isView(v)
      ? Array.from(v as unknown as ArrayLike<unknown>, plain)
      : Array.isArray(v)
        ? v.map(plain)
        : v;

function ours(v: GgufValue): { type: string; arrayType?: string; value: unknown } {
  if (v.type === 'array') return { type: 'arr', arrayType: v.itemType === 'string' ? 'str' : v.itemType, value: plain(v.value) };
  return { type: v.type === 'string' ? 'str' : v.type, value: plain(v.value) };
}

describe("ggml's C reader reads what @jepa/gguf writes", () => {
  for (const [file, { cReaderAccepts }] of Object.entries(manifest)) {
    it(`${file}: ${cReaderAccepts ? 'same metadata and tensor table' : 'refused (nested arrays are not in the C reader)'}`, () => {
      const path = join(dir, file);
      if (!cReaderAccepts) {
        expect(() => ggufInfo(path)).toThrowError(expect.objectContaining({ code: 'GGUF' }));
        return;
      }
      const c = ggufInfo(path);
      const ts = readGguf(path);
      expect(c.version).toBe(ts.version);
      expect(c.alignment).toBe(ts.alignment);
      expect(c.dataOffset).toBe(ts.dataOffset);
      expect(Object.keys(c.kv)).toEqual([...ts.metadata.keys()]);
      for (const [key, value] of ts.metadata) {
        const mine = ours(value);
        const theirs = c.kv[key]!;
        expect({ key, type: theirs.type, arrayType: theirs.arrayType, value: plain(theirs.value) }).toEqual({
          key,
          ...mine,
          arrayType: mine.arrayType,
        });
      }
      expect(c.tensors.map((t) => [t.name, t.type, t.offset, t.nbytes, t.ne.slice(0, 4)])).toEqual(
        ts.tensors.map((t) => [t.name, t.type, t.offset, t.nbytes, [0, 1, 2, 3].map((d) => t.shape[d] ?? 1)]),
      );
    });
  }
});

describe("@jepa/gguf's type table", () => {
  it("equals ggml's own block and type sizes for every type id", async () => {
    const { GGML_TYPES } = await import('@jepa/gguf');
    const { typeTraits } = await import('../src/index.js');
    for (const t of GGML_TYPES) {
      const g = typeTraits(t.id);
      expect([t.id, t.blockSize, t.typeSize]).toEqual([t.id, g.blockSize, g.typeSize]);
    }
  });
});
