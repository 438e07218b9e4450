// V-JEPA 2-AC quantized: the q8_0 predictor against the float64 reference at its tier, and whether
// quantization changes which candidates a plan would keep — the top-10 of 64 candidate rollouts by
// energy under each weight type, against f32's.
import { dirname, join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { AC_CASES, acCase } from '@jepa/testing';
import { AcWorldModel, normalSampler } from '@jepa/worldmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quantizeFile } from '../src/quantize-file.js';

const CANDIDATES = 64;
const TOP = 10;
const TYPES = ['f32', 'f16', 'q8_0', 'q4_0'] as const;

/** Seeded candidate actions [K, 2, 7] in the planner's ranges: xyz within ±0.05, no rotation, gripper within ±0.75. */
function candidates(seed: number): Float32Array {
  const normal = normalSampler(seed);
  const out = new Float32Array(CANDIDATES * 2 * 7);
  for (let r = 0; r < CANDIDATES * 2; r++) {
    for (let j = 0; j < 3; j++) out[r * 7 + j] = Math.max(-0.05, Math.min(0.05, 0.05 * normal()));
    out[r * 7 + 6] = Math.max(-0.75, Math.min(0.75, normal()));
  }
  return out;
}

const ranking = (energies: Float32Array) =>
  Array.from(energies.keys())
    .sort((a, b) => energies[a]! - energies[b]! || a - b)
    .slice(0, TOP);

for (const name of AC_CASES) {
  describe(`V-JEPA 2-AC ${name} quantized`, () => {
    const fx = acCase(name, convertCheckpoint);
    const models = new Map<string, AcWorldModel>();
    beforeAll(async () => {
      const f32 = await fx.convert();
      for (const t of TYPES) {
        const path = t === 'f32' ? f32 : join(dirname(f32), `${t}.gguf`);
        if (t !== 'f32') await quantizeFile(f32, path, t);
        models.set(t, await AcWorldModel.load(path, { threads: 2 }));
      }
    }, 120_000);
    afterAll(() => {
      for (const m of models.values()) m.dispose();
    });

    it('q8_0: the predictor passes the q8 tier', async () => {
      const wm = models.get('q8_0')!;
      const out = await wm.predict({
        candidates: 1,
        steps: fx.manifest.hparams.steps,
        tokens: fx.f32('tokens'),
        actions: fx.f32('actions'),
        states: fx.f32('states'),
        ...(fx.has('extrinsics') ? { extrinsics: fx.f32('extrinsics') } : {}),
      });
      const v = judge(policyRow('cpu', 'video', 'q8'), compareTokens(out, fx.f32('pred'), wm.embedDim));
      console.log(`ac ${name} q8_0 predict ${v.summary}`);
      expect(v.pass).toBe(true);
    });

    it(`top-${TOP} of ${CANDIDATES} candidates by energy, each type against f32`, async () => {
      const actions = candidates(17);
      const extrinsics = fx.has('rollout_extrinsics') ? { extrinsics: fx.f32('rollout_extrinsics') } : {};
      const top = new Map<string, number[]>();
      for (const [t, wm] of models) {
        const r = await wm.rollout({
          context: fx.f32('rollout_context'),
          pose: fx.f32('rollout_pose'),
          actions,
          candidates: CANDIDATES,
          ...extrinsics,
        });
        const n = wm.tokensPerFrame * wm.embedDim;
        const last = new Float32Array(CANDIDATES * n);
        for (let k = 0; k < CANDIDATES; k++) last.set(r.frames.subarray((k * 2 + 1) * n, (k * 2 + 2) * n), k * n);
        top.set(t, ranking(wm.energy(last, CANDIDATES, fx.f32('cem_goal'))));
      }
      const ref = top.get('f32')!;
      for (const t of TYPES) {
        const got = top.get(t)!;
        const shared = got.filter((k) => ref.includes(k)).length;
        const sameOrder = got.filter((k, i) => ref[i] === k).length;
        console.log(
          `ac ${name} ${t}: top-${TOP} shared with f32 ${shared}/${TOP}, same rank ${sameOrder}/${TOP}, best ${got[0] === ref[0] ? 'same' : 'differs'}`,
        );
      }
      expect(top.get('f32')).toEqual(ref);
      // q8_0 keeps the plan's elites: at least 8 of f32's top 10
      expect(top.get('q8_0')!.filter((k) => ref.includes(k)).length).toBeGreaterThanOrEqual(8);
    });
  });
}
