// Asynchronous compute, ownership and disposal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NativeError, createContext, mapFile, openBackend } from '../src/index.js';
import { F32, cpu, heavyGraph, uniform } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-native-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('asynchronous compute', () => {
  it('keeps the event loop responsive while a graph runs', async () => {
    const { graph, feed } = heavyGraph();
    feed();
    let ticks = 0;
    let done = false;
    let ticksBeforeDone = 0;
    const timer = setInterval(() => ticks++, 1);
    const pending = graph.compute(cpu()).then(() => {
      done = true;
      ticksBeforeDone = ticks;
    });
    await new Promise((r) => setTimeout(r, 20));
    const sawTimerWhileBusy = ticks > 0 && !done;
    await pending;
    clearInterval(timer);
    expect(sawTimerWhileBusy || ticksBeforeDone > 0).toBe(true);
    expect(ticksBeforeDone).toBeGreaterThan(0);
  });

  it('refuses a second compute of the same graph while the first runs', async () => {
    const { graph, feed } = heavyGraph();
    feed();
    const first = graph.compute(cpu());
    expect(graph.busy).toBe(true);
    expect(() => graph.compute(cpu())).toThrowError(expect.objectContaining({ code: 'BUSY' }));
    await first;
    expect(graph.busy).toBe(false);
  });

  it('gives the same bits on repeated runs and across backends with the same thread count', async () => {
    const { graph, out, feed } = heavyGraph();
    feed();
    await graph.compute(cpu());
    const a = out.get(new Float32Array(out.nbytes / 4));
    const other = openBackend({ device: 'cpu', threads: 2 });
    graph.allocate(other);
    feed();
    await graph.compute(other);
    const b = out.get(new Float32Array(out.nbytes / 4));
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    other.dispose();
  });
});

describe('profiling', () => {
  it('profile() computes node by node: the same bits as compute(), a time and an op per node', async () => {
    const { graph, out, feed, x } = heavyGraph();
    const read = () => Buffer.from(out.get(new Float32Array(out.nbytes / 4)).buffer);
    feed();
    await graph.compute(cpu());
    const whole = read();
    x.set(uniform(x.nbytes / 4, 3)); // another input first, so the profiled run has to compute
    await graph.profile(cpu());
    expect(read().equals(whole)).toBe(false);
    feed();
    const ms = await graph.profile(cpu());
    expect(read().equals(whole)).toBe(true);
    expect(ms).toHaveLength(graph.nodeCount);
    expect(ms.every((t) => Number.isFinite(t) && t >= 0)).toBe(true);
    const ops = graph.ops();
    expect(ops).toHaveLength(graph.nodeCount);
    expect(ops.filter((op) => op === 'MUL_MAT')).toHaveLength(24);
    expect(ops.filter((op) => op === 'NORM')).toHaveLength(24);
    // The matmuls dominate this graph; a profiler that timed nothing would not show it.
    const matmulMs = ms.filter((_, i) => ops[i] === 'MUL_MAT').reduce((a, b) => a + b, 0);
    expect(matmulMs).toBeGreaterThan(ms.reduce((a, b) => a + b, 0) / 2);
  });

  it('profile() refuses a graph that is not allocated on the backend, like compute()', () => {
    const { graph } = heavyGraph();
    const other = openBackend({ device: 'cpu', threads: 1 });
    expect(() => graph.profile(other)).toThrowError(expect.objectContaining({ code: 'NOT_ALLOCATED' }));
    other.dispose();
  });
});

describe('disposal', () => {
  it('disposing everything while a compute is in flight waits for it instead of crashing', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const { ctx, graph, out, feed } = heavyGraph();
    graph.allocate(backend);
    feed();
    const pending = graph.compute(backend);
    graph.dispose();
    ctx.dispose();
    backend.dispose();
    await expect(pending).resolves.toBeUndefined();
    // the output lived in the disposed graph's compute buffer: reading it is refused, not a crash
    expect(() => out.get(new Float32Array(out.nbytes / 4))).toThrowError(expect.objectContaining({ code: 'NO_DATA' }));
    expect(out.hasData).toBe(false);
    out.dispose();
  });

  it('a disposed graph frees its compute buffer at once, not when a GC collects its wrapper', async () => {
    const backend = openBackend({ device: 'cpu', threads: 1 });
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, [32, 32]);
    x.setInput();
    const y = ctx.norm(ctx.mulMat(x, x), 1e-5);
    y.setOutput();
    const graph = ctx.buildGraph([y]);
    graph.allocate(backend);
    x.set(uniform(32 * 32, 3));
    await graph.compute(backend);
    expect(y.hasData).toBe(true);
    graph.dispose();
    // no await between: the buffer goes with the last owner, the way a copied handle kept it until a GC (20 of 20 graphs before)
    expect(y.hasData).toBe(false);
    ctx.dispose();
    backend.dispose();
  });

  it('use after dispose throws a typed error', () => {
    const ctx = createContext(4);
    const t = ctx.newTensor(F32, [4]);
    const graph = ctx.buildGraph([ctx.scale(t, 2)]);
    const backend = openBackend({ device: 'cpu', threads: 1 });
    t.dispose();
    graph.dispose();
    ctx.dispose();
    backend.dispose();
    const disposed = expect.objectContaining({ name: 'NativeError', code: 'DISPOSED' });
    expect(() => t.ne).toThrowError(disposed);
    expect(() => ctx.newTensor(F32, [2])).toThrowError(disposed);
    expect(() => graph.compute(cpu())).toThrowError(disposed);
    expect(() => backend.threads).toThrowError(disposed);
    expect(() => t.ne).toThrow(NativeError);
  });

  it('supports `using` through Symbol.dispose', () => {
    const ctx = createContext(4);
    ctx[Symbol.dispose]();
    expect(() => ctx.tensorCount).toThrowError(expect.objectContaining({ code: 'DISPOSED' }));
  });
});

describe('memory', () => {
  it('binds tensors to a mapped file without copying and reads them back', async () => {
    const values = uniform(64, 5);
    const file = join(tmp, 'weights.bin');
    const header = new Uint8Array(32).fill(7);
    writeFileSync(file, Buffer.concat([header, Buffer.from(values.buffer)]));
    const mapping = mapFile(file);
    expect(mapping.length).toBe(32 + 256);
    const buf = mapping.toBuffer(0, mapping.length);
    const ctx = createContext(8);
    const w = ctx.newTensor(F32, [16, 4]);
    w.bind(buf, 32);
    expect(w.hasData).toBe(true);
    expect(Array.from(w.get(new Float32Array(64)))).toEqual(Array.from(values));
    const x = ctx.newTensor(F32, [16, 1]);
    const y = ctx.mulMat(w, x);
    x.setInput();
    const graph = ctx.buildGraph([y]);
    graph.allocate(cpu());
    x.set(new Float32Array(16).fill(1));
    await graph.compute(cpu());
    const got = y.get(new Float32Array(4));
    for (let r = 0; r < 4; r++) {
      const s = values.slice(r * 16, r * 16 + 16).reduce((a, b) => a + b, 0);
      expect(got[r]).toBeCloseTo(s, 5);
    }
    mapping.dispose();
    // the buffer keeps the mapping alive
    expect(w.get(new Float32Array(64))[3]).toBe(values[3]);
  });

  it('release() drops resident pages but the bytes stay readable from the file', () => {
    const values = uniform(3 * 4096, 9); // 48 KiB: whole pages inside the released range
    const file = join(tmp, 'release.bin');
    writeFileSync(file, Buffer.from(values.buffer));
    const mapping = mapFile(file);
    const ctx = createContext(2);
    const w = ctx.newTensor(F32, [4096, 3]);
    w.bind(mapping.toBuffer(0, mapping.length), 0);
    expect(Array.from(w.get(new Float32Array(values.length)))).toEqual(Array.from(values));
    mapping.release(100, mapping.length - 200);
    expect(Array.from(w.get(new Float32Array(values.length)))).toEqual(Array.from(values));
    expect(() => mapping.release(0, mapping.length + 1)).toThrowError(expect.objectContaining({ code: 'OUT_OF_RANGE' }));
    mapping.dispose();
  });

  it('refuses out-of-file and out-of-buffer placements', () => {
    const file = join(tmp, 'small.bin');
    writeFileSync(file, Buffer.alloc(64));
    const mapping = mapFile(file);
    expect(() => mapping.toBuffer(32, 64)).toThrowError(expect.objectContaining({ code: 'OUT_OF_RANGE' }));
    const buf = mapping.toBuffer(0, 64);
    const ctx = createContext(4);
    const t = ctx.newTensor(F32, [16]);
    expect(() => t.bind(buf, 32)).toThrowError(expect.objectContaining({ code: 'OUT_OF_RANGE' }));
    expect(() => t.set(new Float32Array(16))).toThrowError(expect.objectContaining({ code: 'NO_DATA' }));
    expect(() => mapFile(join(tmp, 'missing.bin'))).toThrowError(expect.objectContaining({ code: 'IO' }));
  });

  it('checks typed-array sizes against the tensor', () => {
    const ctx = createContext(4);
    const t = ctx.newTensor(F32, [8]);
    ctx.allocate(cpu());
    expect(() => t.set(new Float32Array(9))).toThrowError(expect.objectContaining({ code: 'OUT_OF_RANGE' }));
    t.set(new Float32Array([1, 2, 3]), 20);
    expect(Array.from(t.get(new Float32Array(3), 20))).toEqual([1, 2, 3]);
  });

  it('allocates weights in the CPU repacking buffer type when asked', () => {
    expect(cpu().bufferTypes()).toContain('CPU_REPACK');
    const ctx = createContext(4);
    ctx.newTensor(F32, [32, 4]);
    const buf = ctx.allocate(cpu(), 'CPU_REPACK');
    expect(buf.name).toMatch(/CPU_REPACK/);
    expect(() => ctx.allocate(cpu())).toThrowError(expect.objectContaining({ code: 'NOTHING_TO_ALLOCATE' }));
    const ctx2 = createContext(4);
    ctx2.newTensor(F32, [32]);
    expect(() => ctx2.allocate(cpu(), 'NOPE')).toThrowError(expect.objectContaining({ code: 'NO_BUFFER_TYPE' }));
  });
});
