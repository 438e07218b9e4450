import { describe, expect, it } from 'vitest';
import { normalSampler, planCem } from '../src/index.js';

const target = Float32Array.from([0.5, -1.25, 2, 0.75, -0.5, 1.5]); // horizon 3 x actionDim 2

async function quadratic(candidates: Float32Array, count: number): Promise<Float32Array> {
  const costs = new Float32Array(count);
  for (let c = 0; c < count; c++) for (let j = 0; j < 6; j++) costs[c] += (candidates[c * 6 + j]! - target[j]!) ** 2;
  return costs;
}

describe('CEM planner', () => {
  it('converges to the minimum of a quadratic cost', async () => {
    const plan = await planCem(quadratic, { horizon: 3, actionDim: 2, samples: 200, iterations: 25, topk: 20, seed: 3 });
    for (let j = 0; j < 6; j++) expect(Math.abs(plan.mean[j]! - target[j]!)).toBeLessThan(0.02);
    expect(plan.bestCosts.at(-1)!).toBeLessThan(plan.bestCosts[0]!);
  });

  it('is reproducible from its seed and pins candidate 0 to the mean', async () => {
    const seen: number[][] = [];
    const spy = async (c: Float32Array, n: number) => {
      seen.push(Array.from(c.subarray(0, 6)));
      return quadratic(c, n);
    };
    const a = await planCem(spy, { horizon: 3, actionDim: 2, samples: 50, iterations: 4, topk: 5, seed: 9 });
    const b = await planCem(quadratic, { horizon: 3, actionDim: 2, samples: 50, iterations: 4, topk: 5, seed: 9 });
    expect(Array.from(a.mean)).toEqual(Array.from(b.mean));
    expect(seen[0]).toEqual([0, 0, 0, 0, 0, 0]);
    const c = await planCem(quadratic, { horizon: 3, actionDim: 2, samples: 50, iterations: 4, topk: 5, seed: 10 });
    expect(Array.from(c.mean)).not.toEqual(Array.from(a.mean));
  });

  it('refits mean and unbiased std of the top-k from injected noise', async () => {
    // 4 candidates of width 1; costs rank them by value, top-2 are candidates 0 (the mean, 0) and 1.
    const noise = Float32Array.from([9, 1, 2, 3]);
    const plan = await planCem(async (c) => Float32Array.from(c, (v) => Math.abs(v)), {
      horizon: 1,
      actionDim: 1,
      samples: 4,
      iterations: 1,
      topk: 2,
      varScale: 2,
      noise: () => noise,
    });
    // candidates: [0 (pinned), 2, 4, 6]; elite {0, 2}: mean 1, unbiased std sqrt(2)
    expect(plan.mean[0]).toBeCloseTo(1, 6);
    expect(plan.std[0]).toBeCloseTo(Math.SQRT2, 6);
  });

  it('draws standard normal samples', () => {
    const next = normalSampler(1);
    let s = 0;
    let s2 = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const z = next();
      s += z;
      s2 += z * z;
    }
    expect(Math.abs(s / n)).toBeLessThan(0.03);
    expect(Math.abs(s2 / n - 1)).toBeLessThan(0.05);
  });
});
