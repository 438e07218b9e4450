/**
 * Writes the committed interop fixtures under fixtures/gguf/ts/: GGUFs written by this package for gguf-py and
 * ggml's C reader to read, plus manifest.json describing each (metadata, tensor table, per-tensor sha256).
 * The Python half (scripts/gguf_py_interop.py) then reads them and writes fixtures/gguf/py/. `pnpm fixtures:gguf`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readGgufFromBuffer } from '../src/gguf/reader.js';
import type { GgufValue } from '../src/gguf/value.js';
import { allTypesFile, forgedFixtures } from './fixture-sets.js';

const root = resolve(import.meta.dirname, '../../../../../fixtures/gguf');
const out = join(root, 'ts');
mkdirSync(out, { recursive: true });

/** Metadata in plain JSON: 64-bit integers as decimal strings, floats as numbers (exact for f32 and f64). */
export function jsonValue(v: GgufValue): unknown {
  if (v.type !== 'array') return typeof v.value === 'bigint' ? v.value.toString() : v.value;
  if (v.itemType === 'array') return (v.value as GgufValue[]).map(jsonValue);
  return Array.from(v.value as ArrayLike<unknown>, (x) => (typeof x === 'bigint' ? x.toString() : x));
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const files: [string, Uint8Array][] = [['all-types.gguf', allTypesFile(true)], ['c-reader-all-types.gguf', allTypesFile(false)], ...forgedFixtures()];
const manifest: Record<string, unknown> = {};
for (const [name, bytes] of files) {
  writeFileSync(join(out, name), bytes);
  const h = readGgufFromBuffer(bytes);
  manifest[name] = {
    sha256: sha256(bytes),
    size: bytes.byteLength,
    alignment: h.alignment,
    // ggml's C reader has no arrays of arrays: it must refuse a file that has one and load every other.
    cReaderAccepts: ![...h.metadata.values()].some((v) => v.type === 'array' && v.itemType === 'array'),
    dataOffset: h.dataOffset,
    metadata: Object.fromEntries(
      [...h.metadata].map(([k, v]) => [k, { type: v.type === 'array' ? `array:${v.itemType}` : v.type, value: jsonValue(v) }]),
    ),
    tensors: h.tensors.map((t) => ({
      name: t.name,
      type: t.type,
      shape: t.shape,
      offset: t.offset,
      nbytes: t.nbytes,
      sha256: sha256(bytes.subarray(t.offset, t.offset + t.nbytes)),
    })),
  };
}
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
console.log(`wrote ${files.length} GGUFs and manifest.json to ${out}`);
