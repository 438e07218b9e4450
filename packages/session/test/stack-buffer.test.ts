// Stacking: items in order, one buffer reused by batches that follow each other, and a batch stacked
// while another is still in use kept apart from it.
import { describe, expect, it } from 'vitest';
import { StackBuffer } from '../src/stack-buffer.js';

const item = (v: number) => ({ data: new Float32Array([v, v + 0.5]), shape: [2] });

describe('StackBuffer', () => {
  it('stacks items in order under a batch axis, reusing the buffer for the next batch of the size', async () => {
    const stack = new StackBuffer();
    const seen: Float32Array[] = [];
    await stack.use([item(1), item(2)], async (input) => {
      expect(input.shape).toEqual([2, 2]);
      expect(Array.from(input.data)).toEqual([1, 1.5, 2, 2.5]);
      seen.push(input.data);
    });
    await stack.use([item(3), item(4)], async (input) => {
      seen.push(input.data);
    });
    expect(seen[1]).toBe(seen[0]);
  });

  it('gives a batch stacked while another is in use a buffer of its own', async () => {
    const stack = new StackBuffer();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let first!: Float32Array;
    const a = stack.use([item(1), item(2)], async (input) => {
      first = input.data;
      await held;
      return Array.from(input.data);
    });
    const b = await stack.use([item(5), item(6)], async (input) => {
      expect(input.data).not.toBe(first);
      return Array.from(input.data);
    });
    release();
    expect(await a).toEqual([1, 1.5, 2, 2.5]);
    expect(b).toEqual([5, 5.5, 6, 6.5]);
  });
});
