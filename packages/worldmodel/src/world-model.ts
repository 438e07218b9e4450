// LeWorldModel at inference: frames -> state embeddings (encoder CLS -> projector), the
// action-conditioned predictor, the reference's autoregressive rollout with a 3-step history,
// the goal cost, and CEM planning with every candidate of an iteration batched into one graph.
import { type ActionStats, denormalizeActions, normalizeActions } from './action-stats.js';
import type { ActionPredictorHparams } from '@jepa/gguf';
import type { BuiltGraph, EncoderInput, Model, ModelLoadOptions } from '@jepa/graph';
import { planCem, type CemOptions } from './cem.js';
import { causalMaskF16 } from './causal-mask.js';
import { WorldModelError } from './errors.js';
import { buildLewmPredictorGraph, type LewmPredictorGraph } from './lewm-predictor-graph.js';
import { buildMlpGraph, type MlpGraph } from './mlp-graph.js';
import { ModelOwner, loadOwned, type ModelOwnerOptions } from './model-owner.js';

export interface WorldModelOptions extends ModelOwnerOptions {
  actionStats?: ActionStats;
  /** Negative controls only: run the predictor without its causal mask. */
  unmasked?: boolean;
}

/** K candidates of T steps of one kind of row, laid out [K, T, width] row-major. */
export interface Sequences {
  data: Float32Array;
  candidates: number;
  steps: number;
}

export interface PlanOptions extends Omit<CemOptions, 'horizon' | 'actionDim'> {
  /** State embeddings of the history frames, [H, Dp] (H ≥ 1; the last one is the current state). */
  initial: Float32Array;
  /** The goal's state embedding, [Dp]. */
  goal: Float32Array;
  horizon?: number;
}

export interface PlanResult {
  /** The plan in the model's (normalised) action space, [horizon, actionDim]. */
  actions: Float32Array;
  /** The plan in raw action units (needs actionStats), else null. */
  rawActions: Float32Array | null;
  std: Float32Array;
  bestCosts: number[];
}

const repeat2 = (row: Float32Array) => {
  const out = new Float32Array(2 * row.length);
  out.set(row);
  out.set(row, row.length);
  return out;
};

type AnyGraph = (LewmPredictorGraph | MlpGraph) & BuiltGraph;

export class WorldModel extends ModelOwner<AnyGraph> {
  readonly #p: ActionPredictorHparams;
  readonly #options: WorldModelOptions;

  constructor(model: Model, options: WorldModelOptions = {}, ownsModel = false) {
    const p = model.spec.pred;
    if (p?.kind !== 'action') throw new WorldModelError('NO_PREDICTOR', `${model.spec.name} has no action-conditioned (LeWM) predictor`);
    const stats = options.actionStats;
    if (stats) {
      if (stats.mean.length !== p.actionDim || stats.std.length !== p.actionDim)
        throw new WorldModelError('BAD_INPUT', `action statistics must have ${p.actionDim} values each`);
      for (let i = 0; i < p.actionDim; i++)
        if (!(Number.isFinite(stats.mean[i]) && Number.isFinite(stats.std[i]) && stats.std[i] !== 0))
          throw new WorldModelError('BAD_INPUT', `action statistic ${i} is not finite or has std 0`);
    }
    super(model, options, ownsModel);
    this.#p = p;
    this.#options = options;
  }

  static load(path: string, options: WorldModelOptions & ModelLoadOptions = {}): Promise<WorldModel> {
    return loadOwned(path, options, (model) => new WorldModel(model, options, true));
  }

  get embedDim(): number {
    return this.#p.embedDim;
  }
  get actionDim(): number {
    return this.#p.actionDim;
  }
  /** Steps of history the predictor sees (the rollout's window). */
  get history(): number {
    return this.#p.nFrames;
  }

  /** Frames ([B, C, H, W]) -> state embeddings [B, Dp]: the encoder's CLS through the projector. */
  async encode(frames: EncoderInput): Promise<Float32Array> {
    const out = await this.encoder.encode(frames);
    return this.project(out.pool('cls'), out.batch);
  }

  /** CLS rows [rows, D] -> state embeddings [rows, Dp]. */
  project(cls: Float32Array, rows: number): Promise<Float32Array> {
    const D = this.model.spec.enc.embedDim;
    if (cls.length !== rows * D) throw new WorldModelError('BAD_INPUT', `${rows} CLS rows of width ${D} need ${rows * D} values, got ${cls.length}`);
    return this.runner.serial(async () => {
      const backend = this.runner.backend;
      const g = this.runner.graph(`projector:${rows}`, () =>
        buildMlpGraph(this.model.weights, 'pred.projector', this.#p.projAct, D, rows, !backend.isCpu && this.model.runtime.gpuPrecF32),
      ) as MlpGraph;
      g.input.set(cls);
      await g.graph.compute(backend);
      return g.output.get(new Float32Array(rows * this.#p.embedDim));
    });
  }

  /** Raw actions -> the model's normalised actions, with the configured statistics. */
  normalizeActions(raw: Float32Array): Float32Array {
    return normalizeActions(raw, this.#stats());
  }

  denormalizeActions(actions: Float32Array): Float32Array {
    return denormalizeActions(actions, this.#stats());
  }

  /** The predictor on K candidates of T ≤ history steps: [K, T, Dp], row t predicting step t + 1. */
  predict(embs: Sequences, actions: Sequences): Promise<Float32Array> {
    return this.runner.serial(() => this.#predict(embs, actions));
  }

  /**
   * The reference's rollout: with H history embeddings and T ≥ H actions per candidate, predict from
   * the last ≤ history embeddings and actions, append the last row, append the next action; after
   * T − H such steps one final prediction. Returns [K, T + 1, Dp]: the H given rows, then the predictions.
   * `initial` is [H, Dp] shared by every candidate, or [K, H, Dp].
   */
  rollout(initial: Sequences, actions: Sequences): Promise<Float32Array> {
    return this.runner.serial(() => this.#rollout(initial, actions));
  }

  /** Squared L2 distance of each candidate's last embedding to the goal: [K]. */
  cost(rollout: Sequences, goal: Float32Array): Float32Array {
    const Dp = this.#p.embedDim;
    if (goal.length !== Dp) throw new WorldModelError('BAD_INPUT', `the goal embedding must have ${Dp} values`);
    const { data, candidates: K, steps } = rollout;
    const out = new Float32Array(K);
    for (let k = 0; k < K; k++) {
      const last = (k * steps + steps - 1) * Dp;
      let s = 0;
      for (let d = 0; d < Dp; d++) s += (data[last + d]! - goal[d]!) ** 2;
      out[k] = s;
    }
    return out;
  }

  /** CEM over action sequences: each iteration is one batched rollout of every candidate. */
  async plan(o: PlanOptions): Promise<PlanResult> {
    const Dp = this.#p.embedDim;
    const A = this.#p.actionDim;
    const H = o.initial.length / Dp;
    if (!Number.isInteger(H) || H < 1) throw new WorldModelError('BAD_INPUT', `the initial embeddings must be whole rows of ${Dp}`);
    const horizon = o.horizon ?? 5;
    if (!Number.isInteger(horizon) || horizon < H)
      throw new WorldModelError('BAD_INPUT', `the horizon (${horizon}) must cover the ${H} history steps`);
    const result = await planCem(
      async (candidates, count) => {
        const rolled = await this.rollout({ data: o.initial, candidates: 1, steps: H }, { data: candidates, candidates: count, steps: horizon });
        return this.cost({ data: rolled, candidates: count, steps: horizon + 1 }, o.goal);
      },
      {
        horizon,
        actionDim: A,
        ...(o.samples !== undefined ? { samples: o.samples } : {}),
        ...(o.iterations !== undefined ? { iterations: o.iterations } : {}),
        ...(o.topk !== undefined ? { topk: o.topk } : {}),
        ...(o.varScale !== undefined ? { varScale: o.varScale } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(o.noise ? { noise: o.noise } : {}),
        ...(o.onIteration ? { onIteration: o.onIteration } : {}),
      },
    );
    return {
      actions: result.mean,
      rawActions: this.#options.actionStats ? this.denormalizeActions(result.mean) : null,
      std: result.std,
      bestCosts: result.bestCosts,
    };
  }

  async #predict(embs: Sequences, actions: Sequences): Promise<Float32Array> {
    const p = this.#p;
    const { candidates: K, steps: T } = embs;
    if (actions.candidates !== K || actions.steps !== T)
      throw new WorldModelError('BAD_INPUT', `embeddings [${K}, ${T}] and actions [${actions.candidates}, ${actions.steps}] differ in shape`);
    if (!(Number.isInteger(K) && K >= 1 && Number.isInteger(T) && T >= 1 && T <= p.nFrames))
      throw new WorldModelError('BAD_INPUT', `the predictor takes 1..${p.nFrames} steps of ≥ 1 candidates, got [${K}, ${T}]`);
    if (embs.data.length !== K * T * p.embedDim)
      throw new WorldModelError('BAD_INPUT', `embeddings [${K}, ${T}, ${p.embedDim}] need ${K * T * p.embedDim} values`);
    if (actions.data.length !== K * T * p.actionDim)
      throw new WorldModelError('BAD_INPUT', `actions [${K}, ${T}, ${p.actionDim}] need ${K * T * p.actionDim} values`);
    if (K * T === 1) {
      // ggml's single-row mul_mat takes a matrix-vector kernel whose sums differ in the last bit from
      // the matrix kernel every larger batch uses; two identical rows keep one candidate bit-identical
      // to the same candidate inside a batch
      const two = await this.#predict(
        { data: repeat2(embs.data), candidates: 2, steps: 1 },
        { data: repeat2(actions.data), candidates: 2, steps: 1 },
      );
      return two.subarray(0, p.embedDim);
    }
    const backend = this.runner.backend;
    const causal = !this.#options.unmasked;
    this.#checkBudget(K, T);
    // short sequences: flash with F32 K/V on the CPU; elsewhere the F32 naive path (CUDA's flash forces F16 K/V)
    const flash = !this.#options.noFlash && this.model.weights.onCpu;
    const g = this.runner.graph(`predictor:${K}:${T}`, () =>
      buildLewmPredictorGraph(p, this.model.weights, T, K, { flash, precF32: !backend.isCpu && this.model.runtime.gpuPrecF32, causal }),
    ) as LewmPredictorGraph;
    g.embs.set(embs.data);
    g.actions.set(actions.data);
    g.mask?.set(causalMaskF16(T));
    await g.graph.compute(backend);
    return g.output.get(new Float32Array(K * T * p.embedDim));
  }

  async #rollout(initial: Sequences, actions: Sequences): Promise<Float32Array> {
    const p = this.#p;
    const Dp = p.embedDim;
    const A = p.actionDim;
    const { candidates: K, steps: total } = actions;
    const H = initial.steps;
    if (initial.candidates !== 1 && initial.candidates !== K)
      throw new WorldModelError('BAD_INPUT', `initial embeddings for ${initial.candidates} candidates cannot start ${K}`);
    if (initial.data.length !== initial.candidates * H * Dp)
      throw new WorldModelError('BAD_INPUT', `initial embeddings [${initial.candidates}, ${H}, ${Dp}] need ${initial.candidates * H * Dp} values`);
    if (actions.data.length !== K * total * A) throw new WorldModelError('BAD_INPUT', `actions [${K}, ${total}, ${A}] need ${K * total * A} values`);
    if (!(H >= 1 && total >= H)) throw new WorldModelError('BAD_INPUT', `${total} actions cannot follow ${H} history steps`);
    this.#checkBudget(K, Math.min(p.nFrames, total));
    const rows = total + 1;
    const embs = new Float32Array(K * rows * Dp);
    for (let k = 0; k < K; k++) {
      const src = initial.candidates === 1 ? 0 : k * H * Dp;
      embs.set(initial.data.subarray(src, src + H * Dp), k * rows * Dp);
    }
    for (let have = H; have <= total; have++) {
      // `have` embeddings and `have` actions so far; the window is the last ≤ history of each
      const T = Math.min(p.nFrames, have);
      const e = new Float32Array(K * T * Dp);
      const a = new Float32Array(K * T * A);
      for (let k = 0; k < K; k++) {
        e.set(embs.subarray((k * rows + have - T) * Dp, (k * rows + have) * Dp), k * T * Dp);
        a.set(actions.data.subarray((k * total + have - T) * A, (k * total + have) * A), k * T * A);
      }
      const pred = await this.#predict({ data: e, candidates: K, steps: T }, { data: a, candidates: K, steps: T });
      for (let k = 0; k < K; k++) embs.set(pred.subarray((k * T + T - 1) * Dp, (k * T + T) * Dp), (k * rows + have) * Dp);
    }
    return embs;
  }

  /** The predictor graph of K candidates x T steps must fit JEPA_MAX_GRAPH_MIB; there is nothing to shrink. */
  #checkBudget(K: number, T: number): void {
    const p = this.#p;
    const need = 4 * K * T * (10 * p.embedDim + 4 * p.nHead * p.headDim + 2 * p.ffnDim + 2 * p.projHidden + p.actionHidden);
    if (need > this.model.runtime.maxGraphBytes)
      throw new WorldModelError(
        'OVER_BUDGET',
        `${K} candidates of ${T} steps need about ${Math.ceil(need / 2 ** 20)} MiB of graph memory, over JEPA_MAX_GRAPH_MIB=${this.model.runtime.maxGraphBytes / 2 ** 20}`,
      );
  }

  #stats(): ActionStats {
    const s = this.#options.actionStats;
    if (!s) throw new WorldModelError('NO_ACTION_STATS', 'no action statistics were given (mean/std of the training actions)');
    return s;
  }
}
