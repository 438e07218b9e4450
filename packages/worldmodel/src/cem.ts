// The cross-entropy method's skeleton, shared by LeWM's and V-JEPA 2-AC's planners: each iteration
// samples candidates, scores all of them in one batched call, keeps the lowest-cost top-k (ties by
// index) and refits the sampling distribution to them. Each planner's rules (how to sample, how to
// refit) live with its model.
import { normalSampler } from './random.js';

/** Scores `count` candidates laid out [count, ...] row-major; lower is better. */
export type CandidateCost = (candidates: Float32Array, count: number) => Promise<Float32Array>;

export interface CemRules {
  samples: number;
  topk: number;
  iterations: number;
  /** The candidates of an iteration, [samples, width]. */
  sample(iteration: number): Float32Array;
  /** Refit the distribution to the elites (indices into the candidates, best first). */
  refit(candidates: Float32Array, elites: readonly number[], iteration: number): void;
}

export interface CemIteration {
  iteration: number;
  costs: Float32Array;
  /** Indices of the top-k, best first. */
  elites: number[];
  bestCost: number;
  meanCost: number;
}

export async function runCem(cost: CandidateCost, rules: CemRules, onIteration?: (it: CemIteration) => void): Promise<CemIteration[]> {
  const { samples, topk } = rules;
  if (!(Number.isInteger(samples) && Number.isInteger(topk) && topk >= 1 && topk <= samples))
    throw new RangeError(`need 1 <= topk (${topk}) <= samples (${samples})`);
  const history: CemIteration[] = [];
  for (let it = 0; it < rules.iterations; it++) {
    const candidates = rules.sample(it);
    const costs = await cost(candidates, samples);
    if (costs.length !== samples) throw new RangeError(`the cost function returned ${costs.length} costs for ${samples} candidates`);
    const elites = Array.from({ length: samples }, (_, i) => i)
      .sort((a, b) => costs[a]! - costs[b]! || a - b)
      .slice(0, topk);
    rules.refit(candidates, elites, it);
    const record = { iteration: it, costs, elites, bestCost: costs[elites[0]!]!, meanCost: costs.reduce((a, b) => a + b, 0) / samples };
    history.push(record);
    onIteration?.(record);
  }
  return history;
}

/** Per-column mean and unbiased std of the elite rows of [*, width] candidates. */
export function eliteStats(candidates: Float32Array, width: number, elites: readonly number[]): { mean: Float64Array; std: Float64Array } {
  const mean = new Float64Array(width);
  const std = new Float64Array(width);
  const k = elites.length;
  for (let j = 0; j < width; j++) {
    let m = 0;
    for (const e of elites) m += candidates[e * width + j]!;
    m /= k;
    let v = 0;
    for (const e of elites) v += (candidates[e * width + j]! - m) ** 2;
    mean[j] = m;
    std[j] = k > 1 ? Math.sqrt(v / (k - 1)) : 0;
  }
  return { mean, std };
}

// ---- LeWM's rules (stable_worldmodel's CEMSolver): Gaussian around the mean, candidate 0 is the
// mean itself, refit mean and std to the elites with no momentum; the plan is the final mean.

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

export async function planCem(cost: CandidateCost, options: CemOptions): Promise<CemResult> {
  const { horizon, actionDim } = options;
  const samples = options.samples ?? 300;
  const topk = options.topk ?? 30;
  if (!(samples >= 2 && topk >= 2 && topk <= samples)) throw new RangeError(`need 2 <= topk (${topk}) <= samples (${samples})`);
  const width = horizon * actionDim;
  const mean = new Float32Array(width);
  const std = new Float32Array(width).fill(options.varScale ?? 1);
  const normal = normalSampler(options.seed ?? 0);
  const history = await runCem(
    cost,
    {
      samples,
      topk,
      iterations: options.iterations ?? 30,
      sample(it) {
        const noise = options.noise?.(it);
        if (noise && noise.length !== samples * width) throw new RangeError(`noise for iteration ${it} must hold ${samples * width} values`);
        const candidates = new Float32Array(samples * width);
        for (let s = 0; s < samples; s++)
          for (let j = 0; j < width; j++) {
            const z = noise ? noise[s * width + j]! : normal();
            candidates[s * width + j] = s === 0 ? mean[j]! : z * std[j]! + mean[j]!;
          }
        return candidates;
      },
      refit(candidates, elites) {
        const fit = eliteStats(candidates, width, elites);
        mean.set(fit.mean);
        std.set(fit.std);
      },
    },
    options.onIteration && ((r) => options.onIteration!({ iteration: r.iteration, bestCost: r.bestCost, meanCost: r.meanCost })),
  );
  return { mean, std, bestCosts: history.map((r) => r.bestCost) };
}
