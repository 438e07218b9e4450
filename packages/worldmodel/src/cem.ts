// The cross-entropy-method planner of stable_worldmodel's CEMSolver: sample candidate action
// sequences around a Gaussian, score them in one batched call, refit mean and (unbiased) std to the
// lowest-cost top-k, repeat; the plan is the final mean. Candidate 0 is always the current mean.
import { normalSampler } from './random.js';

export interface CemOptions {
  horizon: number;
  actionDim: number;
  samples?: number;
  iterations?: number;
  topk?: number;
  /** Initial standard deviation of every action component. */
  varScale?: number;
  seed?: number;
  /** Standard-normal noise [samples, horizon, actionDim] for an iteration; overrides the seeded sampler. */
  noise?: (iteration: number) => Float32Array;
  onIteration?: (info: { iteration: number; bestCost: number; meanCost: number }) => void;
}

export interface CemResult {
  /** The plan: [horizon, actionDim]. */
  mean: Float32Array;
  std: Float32Array;
  /** Best candidate cost of each iteration. */
  bestCosts: number[];
}

/** Scores `count` candidates laid out [count, horizon, actionDim]; lower is better. */
export type CandidateCost = (candidates: Float32Array, count: number) => Promise<Float32Array>;

export async function planCem(cost: CandidateCost, options: CemOptions): Promise<CemResult> {
  const { horizon, actionDim } = options;
  const samples = options.samples ?? 300;
  const iterations = options.iterations ?? 30;
  const topk = options.topk ?? 30;
  if (!(samples >= 2 && topk >= 2 && topk <= samples)) throw new RangeError(`need 2 <= topk (${topk}) <= samples (${samples})`);
  const width = horizon * actionDim;
  const mean = new Float32Array(width);
  const std = new Float32Array(width).fill(options.varScale ?? 1);
  const normal = normalSampler(options.seed ?? 0);
  const bestCosts: number[] = [];
  const candidates = new Float32Array(samples * width);
  for (let it = 0; it < iterations; it++) {
    const noise = options.noise?.(it);
    if (noise && noise.length !== samples * width) throw new RangeError(`noise for iteration ${it} must hold ${samples * width} values`);
    for (let s = 0; s < samples; s++)
      for (let j = 0; j < width; j++) {
        const z = noise ? noise[s * width + j]! : normal();
        candidates[s * width + j] = s === 0 ? mean[j]! : z * std[j]! + mean[j]!;
      }
    const costs = await cost(candidates, samples);
    if (costs.length !== samples) throw new RangeError(`the cost function returned ${costs.length} costs for ${samples} candidates`);
    const order = Array.from({ length: samples }, (_, i) => i).sort((a, b) => costs[a]! - costs[b]! || a - b);
    const elite = order.slice(0, topk);
    for (let j = 0; j < width; j++) {
      let m = 0;
      for (const e of elite) m += candidates[e * width + j]!;
      m /= topk;
      let v = 0;
      for (const e of elite) v += (candidates[e * width + j]! - m) ** 2;
      mean[j] = m;
      std[j] = Math.sqrt(v / (topk - 1));
    }
    bestCosts.push(costs[order[0]!]!);
    options.onIteration?.({ iteration: it, bestCost: costs[order[0]!]!, meanCost: costs.reduce((a, b) => a + b, 0) / samples });
  }
  return { mean, std, bestCosts };
}
