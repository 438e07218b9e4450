// Structural properties of the LeWM predictor the reference cannot give, bit-exact on the CPU:
// causality (a step's prediction ignores later steps), rollout = the predictor on the same window,
// and K batched candidates = K separate calls.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeFromEnv } from '@jepa/graph';
import { WorldModel, type Sequences } from '../src/index.js';

const path = resolve(import.meta.dirname, '../../../fixtures/reference-heads/lewm/model.gguf');
const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const wave = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.61 + seed) * 1.3);

describe('LeWM structure (CPU, bit-exact)', () => {
  it('causal prefix: changing step 2 (embedding and action) leaves the predictions of steps 0 and 1 unchanged', async () => {
    const wm = await WorldModel.load(path, { threads: 2 });
    const { embedDim: Dp, actionDim: A } = wm;
    const embs = wave(2 * 3 * Dp, 1);
    const acts = wave(2 * 3 * A, 2);
    const a = await wm.predict({ data: embs, candidates: 2, steps: 3 }, { data: acts, candidates: 2, steps: 3 });
    const embs2 = Float32Array.from(embs);
    const acts2 = Float32Array.from(acts);
    for (let k = 0; k < 2; k++) {
      for (let d = 0; d < Dp; d++) embs2[(k * 3 + 2) * Dp + d]! += 0.7;
      for (let d = 0; d < A; d++) acts2[(k * 3 + 2) * A + d]! -= 0.9;
    }
    const b = await wm.predict({ data: embs2, candidates: 2, steps: 3 }, { data: acts2, candidates: 2, steps: 3 });
    for (let k = 0; k < 2; k++) {
      const prefix = (x: Float32Array) => x.subarray(k * 3 * Dp, (k * 3 + 2) * Dp);
      expect(bits(prefix(a)).equals(bits(prefix(b)))).toBe(true);
      const last = (x: Float32Array) => x.subarray((k * 3 + 2) * Dp, (k * 3 + 3) * Dp);
      expect(bits(last(a)).equals(bits(last(b)))).toBe(false);
    }
    wm.dispose();
    // without the mask, the earlier steps see the change
    const open = await WorldModel.load(path, { threads: 2, unmasked: true });
    const c = await open.predict({ data: embs, candidates: 2, steps: 3 }, { data: acts, candidates: 2, steps: 3 });
    const d = await open.predict({ data: embs2, candidates: 2, steps: 3 }, { data: acts2, candidates: 2, steps: 3 });
    expect(bits(c.subarray(0, Dp)).equals(bits(d.subarray(0, Dp)))).toBe(false);
    open.dispose();
  });

  it('rollout rows equal the predictor run on the same windows (history 3)', async () => {
    const wm = await WorldModel.load(path, { threads: 2 });
    const { embedDim: Dp, actionDim: A } = wm;
    const K = 3;
    const total = 6;
    const initial = wave(2 * Dp, 3); // two history frames shared by every candidate
    const actions = wave(K * total * A, 4);
    const rolled = await wm.rollout({ data: initial, candidates: 1, steps: 2 }, { data: actions, candidates: K, steps: total });
    const rows = total + 1;
    for (let have = 2; have <= total; have++) {
      const T = Math.min(3, have);
      const e = new Float32Array(K * T * Dp);
      const a = new Float32Array(K * T * A);
      for (let k = 0; k < K; k++) {
        e.set(rolled.subarray((k * rows + have - T) * Dp, (k * rows + have) * Dp), k * T * Dp);
        a.set(actions.subarray((k * total + have - T) * A, (k * total + have) * A), k * T * A);
      }
      const p = await wm.predict({ data: e, candidates: K, steps: T }, { data: a, candidates: K, steps: T });
      for (let k = 0; k < K; k++)
        expect(
          bits(p.subarray((k * T + T - 1) * Dp, (k * T + T) * Dp)).equals(bits(rolled.subarray((k * rows + have) * Dp, (k * rows + have + 1) * Dp))),
        ).toBe(true);
    }
    // the given history rows are kept as they are
    expect(bits(rolled.subarray(0, 2 * Dp)).equals(bits(initial))).toBe(true);
    wm.dispose();
  });

  it('K candidates in one graph equal K one-candidate calls, for predict and rollout', async () => {
    const wm = await WorldModel.load(path, { threads: 2 });
    const { embedDim: Dp, actionDim: A } = wm;
    const K = 5;
    const embs: Sequences = { data: wave(K * 3 * Dp, 5), candidates: K, steps: 3 };
    const acts: Sequences = { data: wave(K * 3 * A, 6), candidates: K, steps: 3 };
    const batched = await wm.predict(embs, acts);
    for (let k = 0; k < K; k++) {
      const one = await wm.predict(
        { data: embs.data.subarray(k * 3 * Dp, (k + 1) * 3 * Dp), candidates: 1, steps: 3 },
        { data: acts.data.subarray(k * 3 * A, (k + 1) * 3 * A), candidates: 1, steps: 3 },
      );
      expect(bits(one).equals(bits(batched.subarray(k * 3 * Dp, (k + 1) * 3 * Dp)))).toBe(true);
    }
    const initial = wave(Dp, 7);
    const actions = wave(K * 5 * A, 8);
    const rolled = await wm.rollout({ data: initial, candidates: 1, steps: 1 }, { data: actions, candidates: K, steps: 5 });
    for (let k = 0; k < K; k++) {
      const one = await wm.rollout(
        { data: initial, candidates: 1, steps: 1 },
        { data: actions.subarray(k * 5 * A, (k + 1) * 5 * A), candidates: 1, steps: 5 },
      );
      expect(bits(one).equals(bits(rolled.subarray(k * 6 * Dp, (k + 1) * 6 * Dp)))).toBe(true);
    }
    wm.dispose();
  });

  it('plans reproducibly from a seed, and denormalises the plan with the action statistics', async () => {
    const mean = Array.from({ length: 10 }, (_, i) => 0.1 * i);
    const std = Array.from({ length: 10 }, (_, i) => 1 + 0.5 * i);
    const wm = await WorldModel.load(path, { threads: 2, actionStats: { mean, std } });
    const initial = wave(wm.embedDim, 9);
    const goal = wave(wm.embedDim, 10);
    const a = await wm.plan({ initial, goal, samples: 40, iterations: 3, topk: 5, seed: 4 });
    const b = await wm.plan({ initial, goal, samples: 40, iterations: 3, topk: 5, seed: 4 });
    expect(bits(a.actions).equals(bits(b.actions))).toBe(true);
    expect(a.actions.length).toBe(5 * 10);
    expect(a.bestCosts.length).toBe(3);
    for (let i = 0; i < a.actions.length; i++) expect(a.rawActions![i]).toBeCloseTo(a.actions[i]! * std[i % 10]! + mean[i % 10]!, 5);
    const back = wm.normalizeActions(a.rawActions!);
    for (let i = 0; i < back.length; i++) expect(back[i]).toBeCloseTo(a.actions[i]!, 5);
    wm.dispose();
  });

  it('refuses shapes the predictor cannot take', async () => {
    const wm = await WorldModel.load(path, { threads: 1 });
    const { embedDim: Dp, actionDim: A } = wm;
    await expect(
      wm.predict({ data: new Float32Array(4 * Dp), candidates: 1, steps: 4 }, { data: new Float32Array(4 * A), candidates: 1, steps: 4 }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(
      wm.rollout({ data: new Float32Array(3 * Dp), candidates: 1, steps: 3 }, { data: new Float32Array(2 * A), candidates: 1, steps: 2 }),
    ).rejects.toThrow(/cannot follow/);
    expect(() => wm.normalizeActions(new Float32Array(A))).toThrow(/no action statistics/);
    const budgeted = await WorldModel.load(path, { threads: 1, runtime: runtimeFromEnv({ JEPA_MAX_GRAPH_MIB: '1' }) });
    await expect(
      budgeted.rollout({ data: new Float32Array(Dp), candidates: 1, steps: 1 }, { data: new Float32Array(2000 * 5 * A), candidates: 2000, steps: 5 }),
    ).rejects.toMatchObject({ code: 'OVER_BUDGET' });
    budgeted.dispose();
    wm.dispose();
  });
});
