// A context's graphs take turns in one compute buffer: an encode split into chunks of two sizes
// re-places each chunk's graph before it runs (each item's tokens stay those of encoding it alone),
// and the buffer after every batch size is that of the largest alone.
import { forgeModel } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { Model } from '../src/index.js';

describe('one compute buffer per context', () => {
  it('an encode in chunks of 2, 2 and 1 gives each item the tokens of encoding it alone', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const ctx = model.createContext({ maxBatch: 2 });
    const e = model.spec.enc;
    const shape = [3, e.imgSize, e.imgSize];
    const item = shape.reduce((a, b) => a * b, 1);
    const B = 5;
    const data = Float32Array.from({ length: B * item }, (_, i) => Math.sin(i * 0.017));
    // twice: the second time every chunk's graph is cached, and displaced by the one before it
    for (let round = 0; round < 2; round++) {
      const all = await ctx.encode({ data, shape: [B, ...shape] });
      for (let b = 0; b < B; b++) {
        const one = await ctx.encode({ data: data.subarray(b * item, (b + 1) * item), shape: [1, ...shape] });
        expect(Array.from(all.item(b))).toEqual(Array.from(one.item(0)));
      }
      expect(Array.from(all.item(1))).not.toEqual(Array.from(all.item(0)));
    }
    await model.dispose();
  });

  it('holds the largest batch’s buffer after every batch size, not their sum', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const e = model.spec.enc;
    const input = (b: number) => {
      const shape = [b, 3, e.imgSize, e.imgSize];
      return { data: new Float32Array(shape.reduce((x, y) => x * y, 1)).fill(0.25), shape };
    };
    const every = model.createContext({ maxBatch: 8 });
    for (let b = 1; b <= 8; b++) await every.encode(input(b));
    const largest = model.createContext({ maxBatch: 8 });
    await largest.encode(input(8));
    expect(largest.computeBytes).toBeGreaterThan(0);
    expect(every.computeBytes).toBe(largest.computeBytes);
    await model.dispose();
  });
});
