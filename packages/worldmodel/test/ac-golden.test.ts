// V-JEPA 2-AC against the float64 reference of fixtures/reference/vjepa2_ac (Meta's layout, converted
// here): the frame encoding, the predictor, the mask entry by entry, causality, one rollout, CEM with
// supplied noise, the pose update — and the negative controls that must fail.
import { convertCheckpoint } from '@jepa/convert';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { AC_CASES, acCase, type AcCemSettingsJson } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcWorldModel, acFrameCausalMask, composePose, type AcCemOptions, type AcSteps, type AcWorldModelOptions } from '../src/index.js';

const row = policyRow('cpu', 'video', 'f32');

function cemOptions(s: AcCemSettingsJson, noise: Float32Array): AcCemOptions {
  const block = s.samples * 4;
  return {
    rollout: s.rollout,
    samples: s.samples,
    topk: s.topk,
    cemSteps: s.cem_steps,
    momentumMean: s.momentum_mean,
    momentumStd: s.momentum_std,
    momentumMeanGripper: s.momentum_mean_gripper,
    momentumStdGripper: s.momentum_std_gripper,
    maxnorm: s.maxnorm,
    axis: Object.fromEntries(Object.entries(s.axis).map(([k, v]) => [Number(k), v])),
    closeGripper: s.close_gripper,
    noise: (step, h) => noise.subarray((step * s.rollout + h) * block, (step * s.rollout + h + 1) * block),
  };
}

const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
};

for (const name of AC_CASES) {
  describe(`V-JEPA 2-AC ${name} against the float64 reference`, () => {
    const fx = acCase(name, convertCheckpoint);
    let path = '';
    const models: AcWorldModel[] = [];
    const load = async (options: AcWorldModelOptions = {}) => {
      const wm = await AcWorldModel.load(path, { threads: 2, ...options });
      models.push(wm);
      return wm;
    };
    const steps = (): AcSteps => ({
      candidates: 1,
      steps: fx.manifest.hparams.steps,
      tokens: fx.f32('tokens'),
      actions: fx.f32('actions'),
      states: fx.f32('states'),
      ...(fx.has('extrinsics') ? { extrinsics: fx.f32('extrinsics') } : {}),
    });
    const extrinsics = fx.has('rollout_extrinsics') ? { extrinsics: fx.f32('rollout_extrinsics') } : {};

    beforeAll(async () => {
      path = await fx.convert();
    }, 60_000);
    afterAll(() => {
      for (const m of models) m.dispose();
    });

    it('encodes a frame as a 2-frame clip, then the non-affine LayerNorm', async () => {
      const wm = await load();
      const out = await wm.encodeFrames(fx.f32('frame'), 1);
      const v = judge(row, compareTokens(out, fx.f32('frame_tokens'), wm.embedDim));
      console.log(`ac ${name} encode ${v.summary}`);
      expect(v.pass).toBe(true);
    });

    for (const noFlash of [false, true]) {
      it(`predictor over ${fx.manifest.hparams.steps} steps${noFlash ? ' (naive attention)' : ''}`, async () => {
        const wm = await load({ noFlash });
        const out = await wm.predict(steps());
        const v = judge(row, compareTokens(out, fx.f32('pred'), wm.embedDim));
        console.log(`ac ${name} predict${noFlash ? ' naive' : ''} ${v.summary}`);
        expect(v.pass).toBe(true);
      });
    }

    it('the frame-causal mask, entry by entry', async () => {
      const wm = await load();
      const want = fx.npy('mask');
      const n = want.shape[0]!;
      const got = acFrameCausalMask(wm.predictor, { steps: fx.manifest.hparams.steps, ...wm.grid });
      expect(got.length).toBe(n * n);
      const mismatches = Array.from(want.data as Uint8Array).filter((open, i) => (got[i] === 0) !== (open === 1)).length;
      expect(mismatches).toBe(0);
    });

    it('causality: a change at step 1 moves steps >= 1 only (action, state and frame tokens)', async () => {
      const wm = await load();
      const base = await wm.predict(steps());
      const T = fx.manifest.hparams.steps;
      const perStep = base.length / T;
      const perturbed = steps();
      perturbed.actions = Float32Array.from(perturbed.actions, (v, i) => (Math.floor(i / 7) === 1 ? v + 0.5 : v));
      const out = await wm.predict(perturbed);
      expect(judge(row, compareTokens(out, fx.f32('pred_perturbed'), wm.embedDim)).pass).toBe(true);
      const hw = wm.tokensPerFrame;
      const D = wm.embedDim;
      const variants: [string, (s: AcSteps) => void][] = [
        ['action', (s) => (s.actions[7 + 2] += 0.5)],
        ['state', (s) => (s.states[7 + 4] += 0.5)],
        ['frame tokens', (s) => (s.tokens[hw * D + 3] += 2)],
      ];
      for (const [what, change] of variants) {
        const s = steps();
        change(s);
        const o = await wm.predict(s);
        expect(maxAbs(o.subarray(0, perStep), base.subarray(0, perStep)), `${what}: step 0`).toBe(0);
        expect(maxAbs(o.subarray(perStep), base.subarray(perStep)), `${what}: steps >= 1`).toBeGreaterThan(1e-3);
      }
    });

    it('K candidates in one graph equal each run alone, bit for bit', async () => {
      const wm = await load();
      const one = steps();
      const K = 3;
      const tile = (a: Float32Array, bump: number) =>
        Float32Array.from({ length: K * a.length }, (_, i) => a[i % a.length]! + bump * Math.floor(i / a.length));
      const batch: AcSteps = {
        candidates: K,
        steps: one.steps,
        tokens: tile(one.tokens, 0),
        actions: tile(one.actions, 0.1),
        states: tile(one.states, -0.05),
        ...(one.extrinsics ? { extrinsics: tile(one.extrinsics, 0) } : {}),
      };
      const together = await wm.predict(batch);
      const per = together.length / K;
      for (let k = 0; k < K; k++) {
        const row = (a: Float32Array) => a.subarray((k * a.length) / K, ((k + 1) * a.length) / K);
        const alone = await wm.predict({
          candidates: 1,
          steps: one.steps,
          tokens: row(batch.tokens),
          actions: row(batch.actions),
          states: row(batch.states),
          ...(batch.extrinsics ? { extrinsics: row(batch.extrinsics) } : {}),
        });
        expect(maxAbs(alone, together.subarray(k * per, (k + 1) * per)), `candidate ${k}`).toBe(0);
      }
    });

    it('one rollout: frames and poses', async () => {
      const wm = await load();
      const r = await wm.rollout({
        context: fx.f32('rollout_context'),
        pose: fx.f32('rollout_pose'),
        actions: fx.f32('rollout_actions'),
        candidates: 1,
        ...extrinsics,
      });
      const v = judge(row, compareTokens(r.frames, fx.f32('rollout_frames'), wm.embedDim));
      console.log(`ac ${name} rollout ${v.summary}`);
      expect(v.pass).toBe(true);
      expect(maxAbs(r.poses, fx.f32('rollout_poses'))).toBeLessThan(1e-6);
    });

    for (const run of ['cem', 'cem2'] as const) {
      const settings = fx.manifest.cem[run]?.settings;
      if (!settings) continue;
      it(`${run}: CEM with supplied noise — energies, elites, mean, std and the plan`, async () => {
        const wm = await load();
        const plan = await wm.plan({
          context: fx.f32('rollout_context'),
          goal: fx.f32('cem_goal'),
          pose: fx.f32('rollout_pose'),
          ...extrinsics,
          ...cemOptions(settings, fx.f32(`${run}_noise`)),
        });
        const energies = fx.f32(`${run}_energies`);
        const elites = Array.from(fx.npy(`${run}_elites`).data as BigInt64Array, Number);
        const means = fx.f32(`${run}_mean`);
        const stds = fx.f32(`${run}_std`);
        const width = settings.rollout * 4;
        const { samples, topk } = settings;
        expect(plan.iterations).toHaveLength(settings.cem_steps);
        for (const it of plan.iterations) {
          const e = maxAbs(it.costs, energies.subarray(it.iteration * samples, (it.iteration + 1) * samples));
          console.log(`ac ${name} ${run} step ${it.iteration}: max |energy diff| ${e.toExponential(2)}, elites ${it.elites.join(',')}`);
          expect(e).toBeLessThan(2e-5);
          expect(it.elites).toEqual(elites.slice(it.iteration * topk, (it.iteration + 1) * topk));
          const at = it.iteration * width;
          expect(maxAbs(it.mean, means.subarray(at, at + width)), `mean after step ${it.iteration}`).toBeLessThan(1e-6);
          expect(maxAbs(it.std, stds.subarray(at, at + width)), `std after step ${it.iteration}`).toBeLessThan(1e-6);
        }
        expect(plan.mean).toEqual(plan.iterations.at(-1)!.mean);
        expect(maxAbs(plan.actions, fx.f32(`${run}_action`))).toBeLessThan(1e-6);
      });
    }

    it('the pose update equals scipy Rotation composition, near gimbal lock and ±π included', () => {
      const poses = fx.f32('pose_cases');
      const actions = fx.f32('pose_actions');
      const want = fx.f32('pose_next');
      for (let i = 0; i < poses.length / 7; i++) {
        const got = composePose(poses.subarray(i * 7, i * 7 + 7), actions.subarray(i * 7, i * 7 + 7));
        expect(maxAbs(got, want.subarray(i * 7, i * 7 + 7)), `case ${i}`).toBeLessThan(2e-6);
      }
    });

    describe('negative controls (must fail)', () => {
      const controls: [string, AcWorldModelOptions['control']][] = [
        ['no mask', { unmasked: true }],
        ['conditioning tokens rotated on all three axes', { rope: 'cond-all-axes' }],
        ['actions and states swapped', { swapActionsStates: true }],
      ];
      for (const [what, control] of controls) {
        it(what, async () => {
          const wm = await load({ control });
          const v = judge(row, compareTokens(await wm.predict(steps()), fx.f32('pred'), wm.embedDim));
          console.log(`ac ${name} control '${what}' ${v.summary}`);
          expect(v.pass).toBe(false);
        });
      }
    });
  });
}

describe('V-JEPA 2-AC under a small JEPA_MAX_GRAPH_MIB', () => {
  it('splits K candidates into equal padded chunks with the same values', async () => {
    const fx = acCase('h32', convertCheckpoint);
    const path = await fx.convert();
    const K = 23;
    const T = fx.manifest.hparams.steps;
    const tile = (a: Float32Array) => Float32Array.from({ length: K * a.length }, (_, i) => a[i % a.length]! + 0.01 * Math.floor(i / a.length));
    const input: AcSteps = {
      candidates: K,
      steps: T,
      tokens: tile(fx.f32('tokens')),
      actions: tile(fx.f32('actions')),
      states: tile(fx.f32('states')),
    };
    const whole = await AcWorldModel.load(path, { threads: 2 });
    const want = await whole.predict(input);
    whole.dispose();
    const before = process.env.JEPA_MAX_GRAPH_MIB;
    process.env.JEPA_MAX_GRAPH_MIB = '1';
    try {
      const split = await AcWorldModel.load(path, { threads: 2 });
      expect(split.candidatesPerGraph(T)).toBeLessThan(K);
      expect(K % split.candidatesPerGraph(T)).not.toBe(0);
      expect(maxAbs(await split.predict(input), want)).toBe(0);
      split.dispose();
    } finally {
      if (before === undefined) delete process.env.JEPA_MAX_GRAPH_MIB;
      else process.env.JEPA_MAX_GRAPH_MIB = before;
    }
  });
});
