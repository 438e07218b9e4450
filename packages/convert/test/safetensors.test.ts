import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SAFETENSORS_HEADER, openCheckpoint, readSafetensorsHeader } from '../src/index.js';
import { expectConvertError, fixturePath, hexOf, manifest, safetensorsBytes, tempDir, tempFile } from './fixtures.js';

describe('safetensors files', () => {
  it('reads every tensor and the metadata of a single file bit-exactly', async () => {
    const checkpoint = await openCheckpoint(fixturePath('safetensors', 'model.safetensors'));
    try {
      expect(checkpoint.format).toBe('safetensors');
      expect(checkpoint.metadata).toEqual({ format: 'pt', note: 'jepa' });
      const expected = manifest.safetensors['model.safetensors'];
      expect([...checkpoint.tensors.keys()].sort()).toEqual(Object.keys(expected).sort());
      for (const [name, want] of Object.entries(expected)) {
        const ref = checkpoint.tensors.get(name)!;
        expect(ref.dtype, name).toBe(want.dtype);
        expect([...ref.shape], name).toEqual(want.shape);
        expect(hexOf(await ref.read()), name).toBe(want.hex);
        expect(hexOf(await ref.readAsFloat32()), name).toBe(want.f32hex);
      }
    } finally {
      await checkpoint.close();
    }
  });

  for (const target of ['sharded', 'sharded/model.safetensors.index.json']) {
    it(`reads a sharded checkpoint through ${target}`, async () => {
      const checkpoint = await openCheckpoint(fixturePath('safetensors', target));
      try {
        const expected = manifest.safetensors.sharded;
        expect([...checkpoint.tensors.keys()].sort()).toEqual(Object.keys(expected).sort());
        for (const [name, want] of Object.entries(expected)) {
          const ref = checkpoint.tensors.get(name)!;
          expect(ref.dtype, name).toBe(want.dtype);
          expect(hexOf(await ref.read()), name).toBe(want.hex);
        }
      } finally {
        await checkpoint.close();
      }
    });
  }

  it('opens a folder holding exactly one .safetensors file', async () => {
    const dir = tempDir();
    copyFileSync(fixturePath('safetensors', 'model.safetensors'), join(dir, 'weights.safetensors'));
    const checkpoint = await openCheckpoint(dir);
    expect(checkpoint.tensors.size).toBe(Object.keys(manifest.safetensors['model.safetensors']).length);
    await checkpoint.close();
  });

  it('refuses a truncated file', async () => {
    await expectConvertError(
      openCheckpoint(fixturePath('safetensors', 'truncated.safetensors')),
      'SAFETENSORS_OFFSETS_OUT_OF_DATA',
      /past the data section \(\d+ bytes\)/,
    );
  });

  it('refuses a header whose offsets point past the data', async () => {
    await expectConvertError(
      openCheckpoint(fixturePath('safetensors', 'offsets-beyond-data.safetensors')),
      'SAFETENSORS_OFFSETS_OUT_OF_DATA',
      /\[10000, 10003\]/,
    );
  });

  it('refuses a header whose tensors overlap', async () => {
    await expectConvertError(openCheckpoint(fixturePath('safetensors', 'offsets-overlap.safetensors')), 'SAFETENSORS_OFFSETS_OVERLAP');
  });
});

describe('readSafetensorsHeader on hostile input', () => {
  const f32x2 = new Uint8Array(8);

  it('parses a well-formed header', () => {
    const header = readSafetensorsHeader(
      safetensorsBytes({ __metadata__: { a: 'b' }, w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, f32x2),
    );
    expect(header.metadata).toEqual({ a: 'b' });
    expect(header.entries).toEqual([{ name: 'w', dtype: 'f32', shape: [2], begin: 0, end: 8 }]);
    expect(header.dataSize).toBe(8);
  });

  it('refuses a file shorter than the length prefix', async () => {
    await expectConvertError(() => readSafetensorsHeader(new Uint8Array(5)), 'CONVERT_TRUNCATED');
  });

  it('refuses a header length beyond the file', async () => {
    const bytes = safetensorsBytes({});
    new DataView(bytes.buffer).setBigUint64(0, 1000n, true);
    await expectConvertError(() => readSafetensorsHeader(bytes), 'SAFETENSORS_HEADER_OUT_OF_FILE');
  });

  it('refuses an absurd header length before allocating it', async () => {
    const bytes = safetensorsBytes({});
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 63n, true);
    await expectConvertError(() => readSafetensorsHeader(bytes), 'SAFETENSORS_HEADER_TOO_LARGE');
    new DataView(bytes.buffer).setBigUint64(0, BigInt(MAX_SAFETENSORS_HEADER + 1), true);
    await expectConvertError(() => readSafetensorsHeader(bytes), 'SAFETENSORS_HEADER_TOO_LARGE');
  });

  it('refuses JSON garbage, non-objects and invalid UTF-8', async () => {
    await expectConvertError(() => readSafetensorsHeader(safetensorsBytes(null, undefined, '{"w": {')), 'SAFETENSORS_BAD_HEADER');
    await expectConvertError(() => readSafetensorsHeader(safetensorsBytes([1, 2])), 'SAFETENSORS_BAD_HEADER');
    const bytes = safetensorsBytes(null, undefined, '{"\u00e9":1}');
    bytes[10] = 0xff;
    await expectConvertError(() => readSafetensorsHeader(bytes), 'SAFETENSORS_BAD_HEADER');
  });

  it('refuses unknown and undecoded dtypes by name', async () => {
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ w: { dtype: 'F12', shape: [2], data_offsets: [0, 8] } }, f32x2)),
      'CONVERT_UNKNOWN_DTYPE',
      /F12/,
    );
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ w: { dtype: 'F8_E4M3', shape: [8], data_offsets: [0, 8] } }, f32x2)),
      'CONVERT_UNSUPPORTED_DTYPE',
      /F8_E4M3/,
    );
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ w: { dtype: '__proto__', shape: [8], data_offsets: [0, 8] } }, f32x2)),
      'CONVERT_UNKNOWN_DTYPE',
    );
  });

  it('refuses a shape whose size disagrees with the byte range', async () => {
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ w: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, f32x2)),
      'SAFETENSORS_SIZE_MISMATCH',
      /12 bytes/,
    );
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ w: { dtype: 'F16', shape: [2], data_offsets: [0, 8] } }, f32x2)),
      'SAFETENSORS_SIZE_MISMATCH',
    );
  });

  it('refuses bad shapes and offsets', async () => {
    const bad = (entry: unknown) => readSafetensorsHeader(safetensorsBytes({ w: entry }, f32x2));
    await expectConvertError(() => bad({ dtype: 'F32', shape: [-2], data_offsets: [0, 8] }), 'CONVERT_BAD_SHAPE');
    await expectConvertError(() => bad({ dtype: 'F32', shape: [1.5], data_offsets: [0, 8] }), 'CONVERT_BAD_SHAPE');
    await expectConvertError(() => bad({ dtype: 'F32', shape: '2', data_offsets: [0, 8] }), 'SAFETENSORS_BAD_ENTRY');
    await expectConvertError(() => bad({ dtype: 'F32', shape: [2], data_offsets: [-8, 0] }), 'SAFETENSORS_BAD_ENTRY');
    await expectConvertError(() => bad({ dtype: 'F32', shape: [2], data_offsets: [8, 0] }), 'SAFETENSORS_BAD_ENTRY', /reversed/);
    await expectConvertError(() => bad({ dtype: 'F32', shape: [2] }), 'SAFETENSORS_BAD_ENTRY');
    await expectConvertError(() => bad('F32'), 'SAFETENSORS_BAD_ENTRY');
  });

  it('refuses holes, overlaps and trailing bytes in the data section', async () => {
    const data = new Uint8Array(16);
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ a: { dtype: 'F32', shape: [2], data_offsets: [8, 16] } }, data)),
      'SAFETENSORS_OFFSETS_GAP',
    );
    await expectConvertError(
      () => readSafetensorsHeader(safetensorsBytes({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, data)),
      'SAFETENSORS_OFFSETS_GAP',
      /cover 8/,
    );
    await expectConvertError(
      () =>
        readSafetensorsHeader(
          safetensorsBytes({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [3], data_offsets: [4, 16] } }, data),
        ),
      'SAFETENSORS_OFFSETS_OVERLAP',
    );
  });

  it('refuses a __metadata__ that is not a string map', async () => {
    await expectConvertError(() => readSafetensorsHeader(safetensorsBytes({ __metadata__: { n: 3 } })), 'SAFETENSORS_BAD_METADATA');
    await expectConvertError(() => readSafetensorsHeader(safetensorsBytes({ __metadata__: 'x' })), 'SAFETENSORS_BAD_METADATA');
  });

  it('accepts zero-size and scalar tensors', () => {
    const header = readSafetensorsHeader(
      safetensorsBytes(
        { empty: { dtype: 'F32', shape: [0, 4], data_offsets: [0, 0] }, scalar: { dtype: 'I64', shape: [], data_offsets: [0, 8] } },
        new Uint8Array(8),
      ),
    );
    expect(header.entries.map((e) => e.name)).toEqual(['empty', 'scalar']);
  });
});

describe('sharded safetensors on hostile input', () => {
  function shardedFolder(weightMap: Record<string, string>): string {
    const dir = tempDir();
    copyFileSync(fixturePath('safetensors', 'sharded', 'model-00002-of-00002.safetensors'), join(dir, 'b.safetensors'));
    writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: weightMap }));
    return dir;
  }

  it('refuses a shard path that leaves the folder', async () => {
    await expectConvertError(
      openCheckpoint(shardedFolder({ 'layernorm.weight': '../b.safetensors' })),
      'SAFETENSORS_BAD_INDEX',
      /\.\.\/b\.safetensors/,
    );
    await expectConvertError(openCheckpoint(shardedFolder({ 'layernorm.weight': '/etc/passwd' })), 'SAFETENSORS_BAD_INDEX');
  });

  it('refuses an index that disagrees with its shards', async () => {
    await expectConvertError(
      openCheckpoint(shardedFolder({ 'layernorm.weight': 'b.safetensors' })),
      'SAFETENSORS_SHARD_MISMATCH',
      /not in the index/,
    );
    await expectConvertError(
      openCheckpoint(
        shardedFolder({ 'layernorm.weight': 'b.safetensors', 'encoder.layer.1.attention.query.weight': 'b.safetensors', ghost: 'b.safetensors' }),
      ),
      'SAFETENSORS_SHARD_MISMATCH',
      /ghost/,
    );
  });

  it('refuses an index without a weight map', async () => {
    const path = tempFile('model.safetensors.index.json', new TextEncoder().encode('{"metadata": {}}'));
    await expectConvertError(openCheckpoint(path), 'SAFETENSORS_BAD_INDEX');
  });
});
