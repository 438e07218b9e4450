import { describe, expect, it } from 'vitest';
import { Semaphore, prefetchInOrder } from '../src/pipeline/prefetch.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('prefetchInOrder', () => {
  it('yields in input order although later items finish first', async () => {
    const delays = [30, 1, 20, 2, 10, 0, 5];
    const seen: number[] = [];
    for await (const r of prefetchInOrder(
      delays,
      async (ms, i) => {
        await sleep(ms);
        return i;
      },
      4,
    )) {
      expect(r.ok).toBe(true);
      if (r.ok) seen.push(r.value);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('never has more than depth items loading or waiting, and does load ahead', async () => {
    let live = 0;
    let peak = 0;
    const items = Array.from({ length: 40 }, (_, i) => i);
    const load = async (i: number) => {
      live++;
      peak = Math.max(peak, live);
      await sleep(i % 3);
      return i;
    };
    for await (const r of prefetchInOrder(items, load, 5)) {
      await sleep(2); // the consumer is slower than the loads
      live--;
      expect(r.index).toBeGreaterThanOrEqual(0);
    }
    expect(peak).toBe(5);
  });

  it('yields a failed load as an error and goes on', async () => {
    const out: string[] = [];
    const load = async (x: string) => {
      if (x === 'bad') throw new Error('corrupt');
      return x.toUpperCase();
    };
    for await (const r of prefetchInOrder(['a', 'bad', 'c'], load, 2)) out.push(r.ok ? r.value : `error:${(r.error as Error).message}`);
    expect(out).toEqual(['A', 'error:corrupt', 'C']);
  });

  it('a consumer that stops early waits for the loads it started', async () => {
    let finished = 0;
    const load = async (i: number) => {
      await sleep(5);
      finished++;
      return i;
    };
    for await (const r of prefetchInOrder([0, 1, 2, 3, 4, 5], load, 3)) if (r.index === 0) break;
    expect(finished).toBe(3);
  });

  it('refuses a depth that is not a positive integer', async () => {
    await expect(prefetchInOrder([1], async (x) => x, 0).next()).rejects.toThrow(/positive integer/);
  });
});

describe('Semaphore', () => {
  it('runs at most size tasks at once and releases on failure', async () => {
    const s = new Semaphore(2);
    let live = 0;
    let peak = 0;
    const task = (fail: boolean) =>
      s.run(async () => {
        live++;
        peak = Math.max(peak, live);
        await sleep(3);
        live--;
        if (fail) throw new Error('x');
        return 1;
      });
    const results = await Promise.allSettled([task(false), task(true), task(false), task(true), task(false)]);
    expect(peak).toBe(2);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(2);
  });
});
