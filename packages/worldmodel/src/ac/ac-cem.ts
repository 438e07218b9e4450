// V-JEPA 2-AC's CEM rules (mpc_utils.cem, with the world-model wrapper's settings as defaults): the
// distribution is over [rollout, 4] (xyz deltas and the gripper); rotation deltas are always 0. Each
// step's samples clip xyz to ±maxnorm and the gripper to ±0.75, take the fixed `axis` values, and the
// gripper is forced to 1 from step `closeGripper` on. The refit keeps separate momenta for the mean
// and std of xyz and of the gripper; the plan is the final mean, its gripper rounded to 0 below 0.25.
import { eliteStats, type CemRules } from '../cem.js';
import { normalSampler } from '../random.js';

export const AC_ACTION_DIM = 7;
const SAMPLE_DIM = 4;
const GRIPPER = 6;
const GRIPPER_CLIP = 0.75;
const GRIPPER_ROUND = 0.25;

export interface AcCemOptions {
  rollout?: number;
  samples?: number;
  topk?: number;
  cemSteps?: number;
  momentumMean?: number;
  momentumStd?: number;
  momentumMeanGripper?: number;
  momentumStdGripper?: number;
  maxnorm?: number;
  /** Fixed values by index of the sampled [x, y, z, gripper]. */
  axis?: Readonly<Record<number, number>>;
  /** The step from which the gripper is closed (1.0), or null. */
  closeGripper?: number | null;
  seed?: number;
  /** Standard-normal noise [samples, 4] drawn for rollout step h of CEM step `step`; overrides the seeded sampler. */
  noise?: (step: number, h: number) => Float32Array;
}

export type AcCemSettings = Required<Omit<AcCemOptions, 'noise'>> & Pick<AcCemOptions, 'noise'>;

export function acCemSettings(o: AcCemOptions = {}): AcCemSettings {
  const s = {
    rollout: o.rollout ?? 2,
    samples: o.samples ?? 400,
    topk: o.topk ?? 10,
    cemSteps: o.cemSteps ?? 10,
    momentumMean: o.momentumMean ?? 0.15,
    momentumStd: o.momentumStd ?? 0.15,
    momentumMeanGripper: o.momentumMeanGripper ?? 0.15,
    momentumStdGripper: o.momentumStdGripper ?? 0.15,
    maxnorm: o.maxnorm ?? 0.05,
    axis: o.axis ?? {},
    closeGripper: o.closeGripper ?? null,
    seed: o.seed ?? 0,
    ...(o.noise ? { noise: o.noise } : {}),
  };
  for (const k of ['rollout', 'samples', 'topk', 'cemSteps'] as const)
    if (!(Number.isInteger(s[k]) && s[k] >= 1)) throw new RangeError(`${k} must be a whole number >= 1, got ${s[k]}`);
  if (s.topk > s.samples) throw new RangeError(`topk (${s.topk}) cannot exceed samples (${s.samples})`);
  for (const ax of Object.keys(s.axis).map(Number))
    if (!(Number.isInteger(ax) && ax >= 0 && ax < SAMPLE_DIM)) throw new RangeError(`axis index ${ax} is not one of 0..3 (x, y, z, gripper)`);
  return s;
}

export interface AcCemState {
  /** [rollout, 4]: x, y, z, gripper. */
  mean: Float64Array;
  std: Float64Array;
}

/** The rules plus their live distribution; candidates are [samples, rollout, 7]. */
export function acCemRules(s: AcCemSettings): CemRules & { state: AcCemState; plan(): Float32Array } {
  const R = s.rollout;
  const width = R * AC_ACTION_DIM;
  const mean = new Float64Array(R * SAMPLE_DIM);
  const std = new Float64Array(R * SAMPLE_DIM);
  for (let h = 0; h < R; h++) {
    std.fill(s.maxnorm, h * SAMPLE_DIM, h * SAMPLE_DIM + 3);
    std[h * SAMPLE_DIM + 3] = 1;
    for (const [ax, v] of Object.entries(s.axis)) mean[h * SAMPLE_DIM + Number(ax)] = v;
  }
  const normal = normalSampler(s.seed);
  const clip = (v: number, m: number) => Math.min(m, Math.max(-m, v));
  return {
    samples: s.samples,
    topk: s.topk,
    iterations: s.cemSteps,
    state: { mean, std },
    sample(step) {
      const out = new Float32Array(s.samples * width);
      for (let h = 0; h < R; h++) {
        const noise = s.noise?.(step, h);
        if (noise && noise.length !== s.samples * SAMPLE_DIM)
          throw new RangeError(`noise for step ${step}, h ${h} must hold ${s.samples * SAMPLE_DIM} values`);
        for (let i = 0; i < s.samples; i++) {
          const v = new Float64Array(SAMPLE_DIM);
          for (let j = 0; j < SAMPLE_DIM; j++)
            v[j] = (noise ? noise[i * SAMPLE_DIM + j]! : normal()) * std[h * SAMPLE_DIM + j]! + mean[h * SAMPLE_DIM + j]!;
          for (let j = 0; j < 3; j++) v[j] = clip(v[j]!, s.maxnorm);
          v[3] = clip(v[3]!, GRIPPER_CLIP);
          for (const [ax, value] of Object.entries(s.axis)) v[Number(ax)] = value;
          if (s.closeGripper !== null && h >= s.closeGripper) v[3] = 1;
          const at = i * width + h * AC_ACTION_DIM;
          out[at] = v[0]!;
          out[at + 1] = v[1]!;
          out[at + 2] = v[2]!;
          out[at + GRIPPER] = v[3]!;
        }
      }
      return out;
    },
    refit(candidates, elites) {
      const sel = eliteStats(candidates, width, elites);
      for (let h = 0; h < R; h++)
        for (let j = 0; j < SAMPLE_DIM; j++) {
          const col = h * AC_ACTION_DIM + (j === 3 ? GRIPPER : j);
          const mm = j === 3 ? s.momentumMeanGripper : s.momentumMean;
          const ms = j === 3 ? s.momentumStdGripper : s.momentumStd;
          const at = h * SAMPLE_DIM + j;
          mean[at] = sel.mean[col]! * (1 - mm) + mean[at]! * mm;
          std[at] = sel.std[col]! * (1 - ms) + std[at]! * ms;
        }
    },
    plan() {
      const out = new Float32Array(width);
      for (let h = 0; h < R; h++) {
        for (let j = 0; j < 3; j++) out[h * AC_ACTION_DIM + j] = mean[h * SAMPLE_DIM + j]!;
        const g = mean[h * SAMPLE_DIM + 3]!;
        out[h * AC_ACTION_DIM + GRIPPER] = Math.abs(g) < GRIPPER_ROUND ? 0 : g;
      }
      return out;
    },
  };
}
