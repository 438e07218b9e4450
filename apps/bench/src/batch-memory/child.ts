// One process of `jepa-bench batch-memory`: loads the model, encodes every batch size 1..N once, then
// times rounds of encodes whose batch size changes every call; prints one JSON line. Its compute buffers
// (shared or one per graph) come from JEPA_SHARED_COMPUTE, set by the parent.
import { readFileSync } from 'node:fs';
import { Model } from '@jepa/graph';
import { median, timeMs } from '../stats.js';

export interface ChildResult {
  shared: boolean;
  rssLoadedMib: number;
  /** After the first encode (batch 1), which also makes what every later encode reuses. */
  rssFirstMib: number;
  rssAfterMib: number;
  /** The shared buffer's bytes (0 with a buffer per graph). */
  sharedComputeMib: number;
  /** Median ms per item while the batch size changes every call (each change re-places a graph in the shared buffer). */
  switchingMsPerItem: number;
}

const rssMib = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

export async function runChild(path: string, size: number, frames: number, maxBatch: number, rounds: number, threads: number): Promise<ChildResult> {
  const model = await Model.load(path, { threads });
  const ctx = model.createContext({ maxBatch });
  const input = (b: number) => {
    const shape = frames === 1 ? [b, 3, size, size] : [b, 3, frames, size, size];
    const data = new Float32Array(shape.reduce((a, c) => a * c, 1));
    for (let i = 0; i < data.length; i++) data[i] = ((i * 7) % 255) / 255 - 0.5;
    return { data, shape };
  };
  const rssLoadedMib = rssMib();
  // inputs made one at a time, so that the process holds the engine's memory and not the bench's
  await ctx.encode(input(1));
  const rssFirstMib = rssMib();
  for (let b = 2; b <= maxBatch; b++) await ctx.encode(input(b));
  const rssAfterMib = rssMib();
  // small and large sizes in turn: every call switches graphs
  const order = Array.from({ length: maxBatch }, (_, i) => (i % 2 === 0 ? 1 + (i >> 1) : maxBatch - (i >> 1)));
  const perItem: number[] = [];
  for (let r = 0; r < rounds; r++)
    for (const b of order) {
      const x = input(b);
      perItem.push((await timeMs(() => ctx.encode(x))) / b);
    }
  const shared = process.env.JEPA_SHARED_COMPUTE !== '0';
  const sharedComputeMib = ctx.computeBytes / 2 ** 20;
  await ctx.dispose();
  await model.dispose();
  return { shared, rssLoadedMib, rssFirstMib, rssAfterMib, sharedComputeMib, switchingMsPerItem: median(perItem) };
}
