// The two guards of the binding: findNonFinite over mapped bytes of every float and quantized type
// the project writes, and the compute deadline (ggml's abort callback) that stops a graph between
// nodes and leaves it usable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  NativeError,
  createContext,
  findNonFinite,
  mapFile,
  typeTraits,
  type Context,
  type Graph,
  type NonFiniteQuery,
  type Tensor,
} from '../src/index.js';
import { F32, cpu, heavyGraph, quantizeRows, typeByName, uniform } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-hardening-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const NAN16 = 0x7e00;
const INF16 = 0x7c00;

/** Byte offsets of the d / dmin / m halves in each type's block (ggml-common.h). */
const SCALES: Record<string, number[]> = {
  q4_0: [0],
  q4_1: [0, 2],
  q5_0: [0],
  q5_1: [0, 2],
  q8_0: [0],
  q4_K: [0, 2],
  q5_K: [0, 2],
  q6_K: [208],
};

interface Entry {
  label: string;
  bytes: Uint8Array;
  type: number;
}

/** Writes the entries 32-byte aligned into one file; returns the mapping and the query for each. */
function mapped(entries: Entry[]): { queries: NonFiniteQuery[]; dispose: () => void; mapping: ReturnType<typeof mapFile> } {
  const parts: Buffer[] = [];
  const queries: NonFiniteQuery[] = [];
  let at = 0;
  for (const e of entries) {
    const pad = (32 - (at % 32)) % 32;
    parts.push(Buffer.alloc(pad));
    at += pad;
    queries.push({ offset: at, nbytes: e.bytes.length, type: e.type });
    parts.push(Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength));
    at += e.bytes.length;
  }
  const file = join(tmp, `scan-${Math.random().toString(36).slice(2)}.bin`);
  writeFileSync(file, Buffer.concat([...parts, Buffer.alloc(32)]));
  const mapping = mapFile(file);
  return { queries, mapping, dispose: () => mapping.dispose() };
}

const f32Bytes = (values: Float32Array) => new Uint8Array(values.buffer.slice(0));

function setHalf(bytes: Uint8Array, at: number, bits: number): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset).setUint16(at, bits, true);
  return bytes;
}

describe('findNonFinite', () => {
  it('finds the first NaN / Inf of f32, f16 and bf16 values, and says which', async () => {
    const values = uniform(4096, 3);
    const nanAt = f32Bytes(values);
    new DataView(nanAt.buffer).setUint32(1234 * 4, 0x7fc00000, true);
    new DataView(nanAt.buffer).setUint32(3000 * 4, 0x7f800000, true); // a later Inf: the NaN is first
    const infAt = f32Bytes(values);
    new DataView(infAt.buffer).setFloat32(77 * 4, -Infinity, true);
    const f16 = await quantizeRows(typeByName('f16'), values, 1, values.length);
    const bf16 = await quantizeRows(typeByName('bf16'), values, 1, values.length);
    const { queries, mapping, dispose } = mapped([
      { label: 'f32 finite', bytes: f32Bytes(values), type: F32 },
      { label: 'f32 NaN', bytes: nanAt, type: F32 },
      { label: 'f32 -Inf', bytes: infAt, type: F32 },
      { label: 'f16 finite', bytes: f16, type: typeByName('f16') },
      { label: 'f16 NaN', bytes: setHalf(f16.slice(), 2 * 5, NAN16), type: typeByName('f16') },
      { label: 'f16 -Inf', bytes: setHalf(f16.slice(), 2 * 4095, 0xfc00), type: typeByName('f16') },
      { label: 'bf16 finite', bytes: bf16, type: typeByName('bf16') },
      { label: 'bf16 NaN', bytes: setHalf(bf16.slice(), 2 * 999, 0x7fc0), type: typeByName('bf16') },
      { label: 'bf16 Inf', bytes: setHalf(bf16.slice(), 2 * 10, 0x7f80), type: typeByName('bf16') },
      { label: 'i32', bytes: new Uint8Array(64).fill(0xff), type: typeByName('i32') },
    ]);
    const got = await findNonFinite(mapping, queries, 2);
    expect(got).toEqual([
      { status: 'finite' },
      { status: 'nan', element: 1234, inScale: false },
      { status: 'inf', element: 77, inScale: false },
      { status: 'finite' },
      { status: 'nan', element: 5, inScale: false },
      { status: 'inf', element: 4095, inScale: false },
      { status: 'finite' },
      { status: 'nan', element: 999, inScale: false },
      { status: 'inf', element: 10, inScale: false },
      { status: 'unchecked' },
    ]);
    dispose();
  });

  for (const [name, offsets] of Object.entries(SCALES)) {
    it(`${name}: a non-finite block scale is found at its block, a valid quantization is finite`, async () => {
      const type = typeByName(name);
      const { blockSize, typeSize } = typeTraits(type);
      const blocks = 6;
      const valid = await quantizeRows(type, uniform(blocks * blockSize, 11), 1, blocks * blockSize);
      const entries: Entry[] = [{ label: 'valid', bytes: valid, type }];
      // each scale of the block, NaN in block 4 and Inf in block 2 (the Inf is first)
      for (const off of offsets) entries.push({ label: `nan+${off}`, bytes: setHalf(valid.slice(), 4 * typeSize + off, NAN16), type });
      entries.push({
        label: 'inf',
        bytes: setHalf(setHalf(valid.slice(), 4 * typeSize + offsets[0]!, NAN16), 2 * typeSize + offsets.at(-1)!, INF16),
        type,
      });
      const { queries, mapping, dispose } = mapped(entries);
      const got = await findNonFinite(mapping, queries, 2);
      expect(got[0]).toEqual({ status: 'finite' });
      for (let i = 0; i < offsets.length; i++)
        expect(got[1 + i], `scale at +${offsets[i]}`).toEqual({ status: 'nan', element: 4 * blockSize, inScale: true });
      expect(got.at(-1)).toEqual({ status: 'inf', element: 2 * blockSize, inScale: true });
      dispose();
    });
  }

  it('gives the first bad value of a tensor scanned in many chunks on several threads', async () => {
    const n = 3 * 2 ** 20; // 12 MiB of f32: a dozen 1 MiB chunks
    const values = new Float32Array(n).fill(0.5);
    const bytes = new Uint8Array(values.buffer);
    for (const i of [2_900_001, 1_000_003, 3_100_000]) new DataView(bytes.buffer).setUint32(i * 4, 0x7fc00001, true);
    const { queries, mapping, dispose } = mapped([{ label: 'big', bytes, type: F32 }]);
    for (const threads of [1, 2, 4])
      expect(await findNonFinite(mapping, queries, threads)).toEqual([{ status: 'nan', element: 1_000_003, inScale: false }]);
    dispose();
  });

  it('refuses ranges outside the mapping and partial blocks', async () => {
    const { mapping, dispose } = mapped([{ label: 'x', bytes: new Uint8Array(64), type: F32 }]);
    expect(() => findNonFinite(mapping, [{ offset: 0, nbytes: mapping.length + 1, type: F32 }])).toThrowError(
      expect.objectContaining({ code: 'OUT_OF_RANGE' }),
    );
    expect(() => findNonFinite(mapping, [{ offset: 0, nbytes: 33, type: typeByName('q8_0') }])).toThrowError(
      expect.objectContaining({ code: 'BAD_SHAPE' }),
    );
    expect(() => findNonFinite(mapping, [{ offset: -1, nbytes: 4, type: F32 }])).toThrowError(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
    dispose();
  });
});

/** A chain of `n` adds: cheap nodes, many of them. */
function chain(n: number): { ctx: Context; graph: Graph; x: Tensor; out: Tensor } {
  const ctx = createContext(n + 8);
  const x = ctx.newTensor(F32, [64]);
  x.setInput();
  let y = x;
  for (let i = 0; i < n; i++) y = ctx.add(y, x);
  y.setOutput();
  const graph = ctx.buildGraph([y]);
  graph.allocate(cpu());
  return { ctx, graph, x, out: y };
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('compute deadline', () => {
  it('a deadline of 0 ms stops before the first node; the graph then computes normally', async () => {
    const { ctx, graph, x, out } = chain(300);
    x.set(new Float32Array(64).fill(1));
    const err = await graph.compute(cpu(), { timeoutMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NativeError);
    expect(err).toMatchObject({ code: 'DEADLINE', nodesDone: 0, nodeCount: 300, timeoutMs: 0 });
    expect((err as Error).message).toBe('graph compute ran past its 0 ms deadline after node 0 of 300');
    expect(graph.busy).toBe(false);
    await graph.compute(cpu());
    expect(out.get(new Float32Array(64))[0]).toBe(301);
    // a generous deadline changes nothing
    await graph.compute(cpu(), { timeoutMs: 60_000 });
    expect(out.get(new Float32Array(64))[7]).toBe(301);
    await expect(graph.profile(cpu(), { timeoutMs: 0 })).rejects.toMatchObject({ code: 'DEADLINE', nodesDone: 0 });
    expect((await graph.profile(cpu(), { timeoutMs: 60_000 })).length).toBe(300);
    graph.dispose();
    ctx.dispose();
  });

  it('stops a long graph between nodes, and the next compute gives the uninterrupted bits', async () => {
    const { ctx, graph, out, feed } = heavyGraph();
    feed();
    await graph.compute(cpu());
    const whole = out.get(new Float32Array(out.nbytes / 4));
    const t0 = performance.now();
    const err = await graph.compute(cpu(), { timeoutMs: 5 }).catch((e: unknown) => e);
    const ms = performance.now() - t0;
    expect(err).toMatchObject({ code: 'DEADLINE', nodeCount: graph.nodeCount });
    const done = (err as NativeError).nodesDone!;
    expect(done).toBeGreaterThanOrEqual(0);
    expect(done).toBeLessThan(graph.nodeCount);
    expect((err as Error).message).toMatch(new RegExp(`^graph compute ran past its 5 ms deadline after node ${done} of ${graph.nodeCount}$`));
    expect(ms).toBeLessThan(10_000);
    feed();
    await graph.compute(cpu());
    expect(bits(out.get(new Float32Array(out.nbytes / 4))).equals(bits(whole))).toBe(true);
    graph.dispose();
    ctx.dispose();
  });

  it('refuses a negative or non-finite timeout', () => {
    const { ctx, graph } = chain(2);
    for (const timeoutMs of [-1, Number.NaN, Infinity])
      expect(() => graph.compute(cpu(), { timeoutMs })).toThrowError(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
    expect(graph.busy).toBe(false);
    graph.dispose();
    ctx.dispose();
  });
});
