import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GgufError } from '../src/errors.js';
import { GGML_TYPES, GgmlType, tensorNbytes } from '../src/ggml-types.js';
import { readGguf, readGgufFromBuffer } from '../src/gguf/reader.js';
import { gv, type GgufMetadata, type GgufValue } from '../src/gguf/value.js';
import { GgufWriter } from '../src/gguf/writer.js';
import { mulberry32 } from '../src/forge/rng.js';

const ALL_TYPES: [string, GgufValue][] = [
  ['t.u8', gv.u8(255)],
  ['t.i8', gv.i8(-128)],
  ['t.u16', gv.u16(65535)],
  ['t.i16', gv.i16(-32768)],
  ['t.u32', gv.u32(0xffffffff)],
  ['t.i32', gv.i32(-0x80000000)],
  ['t.f32', gv.f32(Math.fround(-1.5e-38))],
  ['t.f32.negzero', gv.f32(-0)],
  ['t.bool', gv.bool(true)],
  ['t.string', gv.str('héllo wörld ✓ 𝄞')],
  ['t.string.empty', gv.str('')],
  ['t.u64', gv.u64(0xffffffffffffffffn)],
  ['t.i64', gv.i64(-0x8000000000000000n)],
  ['t.f64', gv.f64(Math.PI)],
  ['t.arr.u8', { type: 'array', itemType: 'u8', value: Uint8Array.from([0, 1, 255]) }],
  ['t.arr.i8', { type: 'array', itemType: 'i8', value: Int8Array.from([-128, 0, 127]) }],
  ['t.arr.u16', { type: 'array', itemType: 'u16', value: Uint16Array.from([0, 65535]) }],
  ['t.arr.i16', { type: 'array', itemType: 'i16', value: Int16Array.from([-32768, 32767]) }],
  ['t.arr.u32', gv.u32s([0, 1, 0xffffffff])],
  ['t.arr.i32', { type: 'array', itemType: 'i32', value: Int32Array.from([-1, 7]) }],
  [
    't.arr.f32',
    { type: 'array', itemType: 'f32', value: new Float32Array(new Uint32Array([0x7fc00001, 0xff800000, 0x3f800000, 0x80000000]).buffer) },
  ],
  ['t.arr.bool', gv.bools([true, false, true])],
  ['t.arr.string', gv.strs(['a', '', 'ü'])],
  ['t.arr.u64', { type: 'array', itemType: 'u64', value: BigUint64Array.from([0n, 0xffffffffffffffffn]) }],
  ['t.arr.i64', { type: 'array', itemType: 'i64', value: BigInt64Array.from([-1n, 0x7fffffffffffffffn]) }],
  ['t.arr.f64', { type: 'array', itemType: 'f64', value: Float64Array.from([Math.E, -0, Infinity]) }],
  ['t.arr.empty', { type: 'array', itemType: 'u32', value: new Uint32Array(0) }],
  ['t.arr.nested', gv.arrays([gv.u32s([1, 2]), gv.strs(['x']), gv.arrays([gv.bools([false])])])],
];

function metadataOf(entries: [string, GgufValue][]): GgufMetadata {
  return new Map(entries);
}

/** Supported ggml types with a 2-row tensor whose rows are one 256-element run (a multiple of every block size). */
const SUPPORTED = GGML_TYPES.filter((t) => t.supported);

function tensorBytes(type: number, shape: number[], seed: number): Uint8Array {
  const rnd = mulberry32(seed);
  return Uint8Array.from({ length: Number(tensorNbytes(type, shape)) }, () => Math.floor(rnd() * 256));
}

function writeAll(w: GgufWriter, chunked: boolean): Map<string, Uint8Array> {
  for (const [k, v] of ALL_TYPES) w.setMetadata(k, v);
  const data = new Map<string, Uint8Array>();
  for (const t of SUPPORTED) {
    const shape = [256, 2];
    w.addTensor(`tensor.${t.name}`, t.id, shape);
    data.set(`tensor.${t.name}`, tensorBytes(t.id, shape, t.id + 1));
  }
  w.addTensor('tensor.empty', GgmlType.F32, [0]);
  data.set('tensor.empty', new Uint8Array(0));
  w.addTensor('tensor.scalar', GgmlType.F32, []);
  data.set('tensor.scalar', new Uint8Array(new Float32Array([42]).buffer));
  for (const bytes of data.values()) {
    if (chunked) for (let i = 0; i < bytes.length; i += 7) w.writeTensorData(bytes.subarray(i, i + 7));
    else w.writeTensorData(bytes);
  }
  return data;
}

describe('GGUF round trip', () => {
  it('writes and reads back every metadata type and every ggml tensor type bit-identically', () => {
    const w = GgufWriter.inMemory();
    const data = writeAll(w, false);
    const { bytes } = w.finish();
    const h = readGgufFromBuffer(bytes!);
    expect(h.version).toBe(3);
    expect(h.alignment).toBe(32);
    expect([...h.metadata.keys()]).toEqual(ALL_TYPES.map(([k]) => k));
    expect(h.metadata).toEqual(metadataOf(ALL_TYPES));
    const f32bits = h.metadata.get('t.arr.f32')!;
    expect(new Uint32Array((f32bits.value as Float32Array).buffer)[0]).toBe(0x7fc00001);
    expect(Object.is(h.metadata.get('t.f32.negzero')!.value as number, -0)).toBe(true);
    expect(h.tensors.map((t) => t.name)).toEqual([...data.keys()]);
    for (const t of h.tensors) {
      expect(t.offset % 32).toBe(0);
      expect(t.offset).toBe(h.dataOffset + t.relativeOffset);
      expect(bytes!.subarray(t.offset, t.offset + t.nbytes)).toEqual(data.get(t.name));
    }
    expect(h.tensorIndex.get('tensor.q4_K')).toMatchObject({ type: GgmlType.Q4_K, shape: [256, 2], nbytes: 2 * 144 });

    // Re-writing what was read gives the same file, byte for byte.
    const again = GgufWriter.inMemory();
    for (const [k, v] of h.metadata) again.setMetadata(k, v);
    for (const t of h.tensors) again.addTensor(t.name, t.type, t.shape);
    for (const t of h.tensors) again.writeTensorData(bytes!.subarray(t.offset, t.offset + t.nbytes));
    expect(again.finish().bytes).toEqual(bytes);
  });

  it('streams to a temp file in chunks and renames on finish; the file equals the in-memory output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gguf-rt-'));
    const path = join(dir, 'model.gguf');
    const w = GgufWriter.toFile(path);
    writeAll(w, true);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(readdirSync(dir)[0]).not.toBe('model.gguf');
    const result = w.finish();
    expect(readdirSync(dir)).toEqual(['model.gguf']);
    const mem = GgufWriter.inMemory();
    writeAll(mem, false);
    const expected = mem.finish().bytes!;
    expect(new Uint8Array(readFileSync(path))).toEqual(expected);
    expect(result.size).toBe(expected.byteLength);
    const viaPath = readGguf(path);
    expect(viaPath.metadata).toEqual(readGgufFromBuffer(expected).metadata);
    expect(viaPath.fileSize).toBe(expected.byteLength);
  });

  it.each([1, 8, 64, 4096])('honours general.alignment %i', (alignment) => {
    const w = GgufWriter.inMemory({ alignment });
    w.setMetadata('x', gv.u8(1));
    w.addTensor('a', GgmlType.F32, [3]);
    w.addTensor('b', GgmlType.F16, [5]);
    w.writeTensorData(new Float32Array([1, 2, 3]));
    w.writeTensorData(new Uint16Array(5));
    const bytes = w.finish().bytes!;
    const h = readGgufFromBuffer(bytes);
    expect(h.alignment).toBe(alignment);
    expect(h.metadata.get('general.alignment')).toEqual(alignment === 32 ? undefined : gv.u32(alignment));
    for (const t of h.tensors) expect(t.offset % alignment).toBe(0);
    expect(bytes.byteLength % alignment).toBe(0);
  });

  it('a file with no tensors has its data section right after the metadata', () => {
    const w = GgufWriter.inMemory();
    w.setMetadata('only', gv.str('meta'));
    const bytes = w.finish().bytes!;
    const h = readGgufFromBuffer(bytes);
    expect(h.tensors).toHaveLength(0);
    expect(h.dataOffset).toBe(bytes.byteLength);
  });
});

describe('GgufWriter refusals', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as GgufError).code;
    }
    return 'none';
  };

  it('refuses too many bytes for a tensor, data after the last tensor, and an unfinished tensor', () => {
    const w = GgufWriter.inMemory();
    w.addTensor('a', GgmlType.F32, [2]);
    expect(code(() => w.writeTensorData(new Float32Array(3)))).toBe('GGUF_WRITE_SIZE');
    w.writeTensorData(new Float32Array(1));
    expect(code(() => w.finish())).toBe('GGUF_WRITE_SIZE');
    const w2 = GgufWriter.inMemory();
    w2.addTensor('a', GgmlType.F32, [1]);
    w2.writeTensorData(new Float32Array(1));
    expect(code(() => w2.writeTensorData(new Float32Array(1)))).toBe('GGUF_WRITE_SIZE');
  });

  it('refuses declarations after data, duplicate and over-long names, bad blocks, bad alignment', () => {
    const w = GgufWriter.inMemory();
    w.addTensor('a', GgmlType.F32, [1]);
    expect(code(() => w.addTensor('a', GgmlType.F32, [1]))).toBe('GGUF_DUPLICATE_TENSOR');
    expect(code(() => w.addTensor('x'.repeat(64), GgmlType.F32, [1]))).toBe('GGUF_BAD_TENSOR_NAME');
    expect(code(() => w.addTensor('q', GgmlType.Q8_0, [33]))).toBe('GGUF_BAD_BLOCK');
    expect(code(() => w.addTensor('r', 4, [32]))).toBe('GGUF_BAD_TENSOR_TYPE');
    expect(code(() => w.addTensor('s', GgmlType.F32, [1, 1, 1, 1, 1]))).toBe('GGUF_BAD_DIMS');
    expect(code(() => w.setMetadata('u', gv.u8(256)))).toBe('GGUF_BAD_VALUE_TYPE');
    expect(code(() => w.setMetadata('v', gv.i64(1n << 63n)))).toBe('GGUF_BAD_VALUE_TYPE');
    expect(code(() => w.setMetadata('general.alignment', gv.u64(64n)))).toBe('GGUF_BAD_ALIGNMENT');
    w.writeTensorData(new Float32Array(1));
    expect(code(() => w.addTensor('b', GgmlType.F32, [1]))).toBe('GGUF_WRITE_STATE');
    expect(code(() => GgufWriter.inMemory({ alignment: 24 }))).toBe('GGUF_BAD_ALIGNMENT');
  });

  it('abort removes the temporary file and never creates the target', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gguf-abort-'));
    const w = GgufWriter.toFile(join(dir, 'm.gguf'));
    w.addTensor('a', GgmlType.F32, [4]);
    w.writeTensorData(new Float32Array(2));
    w.abort();
    expect(readdirSync(dir)).toEqual([]);
  });
});
