// LeWM against the float64 reference of fixtures/reference-heads/lewm: projector, the AdaLN-zero
// causal predictor (+ pred_proj), the le-wm rollout with a 3-step history, and one CEM iteration
// with fixed noise — plus the negative control that must fail: the predictor without its mask.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';
import { WorldModel } from '../src/index.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/reference-heads/lewm');
const npy = (name: string) => readNpy(join(dir, `${name}.npy`));
const f32 = (name: string) => npy(name).data as Float32Array;
const row = policyRow('cpu', 'image', 'f32');
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
  cem: { samples: number; topk: number; elite: number[] };
  horizon: number;
};

const load = (options: { unmasked?: boolean; noFlash?: boolean } = {}) => WorldModel.load(join(dir, 'model.gguf'), { threads: 2, ...options });

describe('LeWM against the float64 reference', () => {
  it('projector: CLS -> state embedding', async () => {
    const wm = await load();
    const cls = f32('cls');
    const out = await wm.project(cls, 2);
    const v = judge(row, compareTokens(out, f32('projected'), wm.embedDim));
    console.log(`lewm projector ${v.summary}`);
    expect(v.pass).toBe(true);
    wm.dispose();
  });

  for (const noFlash of [false, true]) {
    it(`predict: 3 candidates x 3 steps${noFlash ? ' (naive attention)' : ''}`, async () => {
      const wm = await load({ noFlash });
      const [K, T] = npy('predict_embs').shape as [number, number];
      const out = await wm.predict({ data: f32('predict_embs'), candidates: K, steps: T }, { data: f32('predict_actions'), candidates: K, steps: T });
      const v = judge(row, compareTokens(out, f32('predict_out'), wm.embedDim));
      console.log(`lewm predict${noFlash ? ' naive' : ''} ${v.summary}`);
      expect(v.pass).toBe(true);
      wm.dispose();
    });
  }

  it('negative control: the predictor without its causal mask fails', async () => {
    const wm = await load({ unmasked: true });
    const out = await wm.predict({ data: f32('predict_embs'), candidates: 3, steps: 3 }, { data: f32('predict_actions'), candidates: 3, steps: 3 });
    const v = judge(row, compareTokens(out, f32('predict_out'), wm.embedDim));
    console.log(`lewm control unmasked: ${v.summary}`);
    expect(v.pass).toBe(false);
    wm.dispose();
  });

  it('rollout: 4 candidates, 1 history frame, 5 actions (windows 1, 2, 3, 3, 3)', async () => {
    const wm = await load();
    const out = await wm.rollout(
      { data: f32('rollout_initial'), candidates: 1, steps: 1 },
      { data: f32('rollout_actions'), candidates: 4, steps: 5 },
    );
    const v = judge(row, compareTokens(out, f32('rollout_out'), wm.embedDim));
    console.log(`lewm rollout ${v.summary}`);
    expect(v.pass).toBe(true);
    wm.dispose();
  });

  it('one CEM iteration with fixed noise: costs, elite, refit mean and std', async () => {
    const wm = await load();
    const { samples, topk, elite } = manifest.cem;
    const noise = f32('cem_noise');
    const plan = await wm.plan({
      initial: f32('rollout_initial'),
      goal: f32('cem_goal'),
      horizon: manifest.horizon,
      samples,
      topk,
      iterations: 1,
      noise: () => noise,
    });
    // the costs the planner saw, from the same rollout
    const cand = Float32Array.from(noise);
    cand.fill(0, 0, manifest.horizon * wm.actionDim);
    const rolled = await wm.rollout(
      { data: f32('rollout_initial'), candidates: 1, steps: 1 },
      { data: cand, candidates: samples, steps: manifest.horizon },
    );
    const costs = wm.cost({ data: rolled, candidates: samples, steps: manifest.horizon + 1 }, f32('cem_goal'));
    const c = judge(row, compareTokens(costs, f32('cem_costs'), samples));
    const m = judge(row, compareTokens(plan.actions, f32('cem_mean'), plan.actions.length));
    const s = judge(row, compareTokens(plan.std, f32('cem_std'), plan.std.length));
    console.log(`lewm cem costs ${c.summary}\nlewm cem mean ${m.summary}\nlewm cem std ${s.summary}`);
    const order = Array.from({ length: samples }, (_, i) => i).sort((a, b) => costs[a]! - costs[b]! || a - b);
    expect(order.slice(0, topk)).toEqual(elite);
    expect(plan.bestCosts[0]).toBe(costs[elite[0]!]);
    expect(c.pass && m.pass && s.pass).toBe(true);
    wm.dispose();
  });
});
