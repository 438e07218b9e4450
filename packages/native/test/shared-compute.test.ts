// Graphs that take turns in the backend's one shared compute buffer: it holds the largest graph's
// memory, where a buffer per graph holds their sum; a displaced graph refuses to run or be read
// until it is allocated again, and then gives the bits its own buffer gives.
import { describe, expect, it } from 'vitest';
import { createContext, openBackend, type Backend, type Context, type Graph, type Tensor } from '../src/index.js';
import { F32, heavyGraph, uniform } from './helpers.js';

const DIM = 64;

/** Weights with their own memory, shared by every graph below. */
function weights(backend: Backend): { ctx: Context; w: Tensor } {
  const ctx = createContext(4);
  const w = ctx.newTensor(F32, [DIM, DIM]);
  ctx.allocate(backend);
  w.set(uniform(DIM * DIM, 11));
  return { ctx, w };
}

/** A few layers over a batch of `batch` rows: the shape every batch size of an encoder repeats. */
function batchGraph(w: Tensor, batch: number): { ctx: Context; graph: Graph; x: Tensor; y: Tensor } {
  const ctx = createContext(64);
  const x = ctx.newTensor(F32, [DIM, batch]);
  x.setInput();
  let y = x;
  for (let i = 0; i < 6; i++) y = ctx.gelu(ctx.norm(ctx.mulMat(w, y), 1e-5));
  y.setOutput();
  return { ctx, graph: ctx.buildGraph([y]), x, y };
}

async function run(g: { graph: Graph; x: Tensor; y: Tensor }, backend: Backend, seed: number): Promise<Buffer> {
  g.x.set(uniform(g.x.nbytes / 4, seed));
  await g.graph.compute(backend);
  return Buffer.from(g.y.get(new Float32Array(g.y.nbytes / 4)).buffer);
}

describe('the shared compute buffer', () => {
  it('grows to the largest graph placed in it, where own buffers add up', () => {
    const own = openBackend({ device: 'cpu', threads: 2 });
    const shared = openBackend({ device: 'cpu', threads: 2 });
    const wo = weights(own);
    const ws = weights(shared);
    const sizes = [1, 2, 3, 5, 8, 13, 21, 32];
    const ownBytes = sizes.map((b) => batchGraph(wo.w, b).graph.allocate(own));
    const sharedBytes = sizes.map((b) => batchGraph(ws.w, b).graph.allocate(shared, { shared: true }));
    const largest = Math.max(...ownBytes);
    expect(ownBytes.reduce((a, b) => a + b, 0)).toBeGreaterThan(2 * largest);
    expect(shared.sharedComputeBytes).toBe(largest);
    expect(sharedBytes.at(-1)).toBe(largest);
    // placed in decreasing size, it does not shrink
    batchGraph(ws.w, 1).graph.allocate(shared, { shared: true });
    expect(shared.sharedComputeBytes).toBe(largest);
    expect(own.sharedComputeBytes).toBe(0);
  });

  it('gives the bits of an own buffer, graph after graph; a displaced graph refuses to run or be read until allocated again', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const { w } = weights(backend);
    const ref = new Map<number, Buffer>();
    for (const b of [3, 8]) {
      const g = batchGraph(w, b);
      g.graph.allocate(backend);
      ref.set(b, await run(g, backend, b));
    }
    const a = batchGraph(w, 3);
    const b = batchGraph(w, 8);
    a.graph.allocate(backend, { shared: true });
    expect(a.graph.placed).toBe(true);
    expect((await run(a, backend, 3)).equals(ref.get(3)!)).toBe(true);
    b.graph.allocate(backend, { shared: true });
    expect([a.graph.placed, b.graph.placed]).toEqual([false, true]);
    expect(() => a.y.get(new Float32Array(a.y.nbytes / 4))).toThrowError(expect.objectContaining({ code: 'NO_DATA' }));
    expect(() => a.graph.compute(backend)).toThrowError(expect.objectContaining({ code: 'NOT_ALLOCATED' }));
    expect((await run(b, backend, 8)).equals(ref.get(8)!)).toBe(true);
    for (let round = 0; round < 3; round++)
      for (const [g, n] of [
        [a, 3],
        [b, 8],
      ] as const) {
        g.graph.allocate(backend, { shared: true });
        expect((await run(g, backend, n)).equals(ref.get(n)!)).toBe(true);
      }
  });

  it('refuses to place a graph while the one placed computes', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const heavy = heavyGraph();
    heavy.graph.allocate(backend, { shared: true });
    heavy.feed();
    const { w } = weights(backend);
    const other = batchGraph(w, 4);
    const running = heavy.graph.compute(backend);
    expect(() => other.graph.allocate(backend, { shared: true })).toThrowError(expect.objectContaining({ code: 'BUSY' }));
    await running;
    other.graph.allocate(backend, { shared: true });
    expect([heavy.graph.placed, other.graph.placed]).toEqual([false, true]);
  });

  it('refuses a graph that reads a displaced graph tensor', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const { w } = weights(backend);
    const first = batchGraph(w, 4);
    first.graph.allocate(backend, { shared: true });
    // a second graph of the same context reads the first one's output, placed by the first
    const next = first.ctx.mulMat(w, first.y);
    const reader = first.ctx.buildGraph([next]);
    reader.allocate(backend);
    await reader.compute(backend);
    batchGraph(w, 2).graph.allocate(backend, { shared: true });
    expect(() => reader.compute(backend)).toThrowError(
      expect.objectContaining({ code: 'NOT_ALLOCATED', message: expect.stringMatching(/no memory/) }),
    );
  });

  it('lets a disposed graph go: the next one is placed, and the placed one outlives its wrapper only while it computes', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const { w } = weights(backend);
    const a = batchGraph(w, 5);
    a.graph.allocate(backend, { shared: true });
    a.graph.dispose();
    expect(a.graph.placed).toBe(false);
    const b = batchGraph(w, 5);
    b.graph.allocate(backend, { shared: true });
    expect(b.graph.placed).toBe(true);
    expect((await run(b, backend, 1)).length).toBe(5 * DIM * 4);
  });
});
