// V-JEPA 2-AC at inference (facebookresearch/vjepa2 notebooks/utils/world_model_wrapper.py): frames
// -> normalised encoder tokens (each frame as a 2-frame clip), the action-conditioned predictor
// (teacher-forced over given steps), the autoregressive rollout the planner runs, the L1 energy to a
// goal, and CEM. Every candidate of a step runs in one graph, split only where JEPA_MAX_GRAPH_MIB
// says a batch would not fit.
import type { AcPredictorHparams } from '@jepa/gguf';
import { kvTypeFor, type Model, type ModelLoadOptions } from '@jepa/graph';
import { runCem, type CemIteration } from '../cem.js';
import { WorldModelError } from '../errors.js';
import { AC_ACTION_DIM, acCemRules, acCemSettings, type AcCemOptions } from './ac-cem.js';
import { buildAcPredictorGraph, type AcPredictorGraph } from './ac-predictor-graph.js';
import { acFrameCausalMask, acRopeTables, acSequenceLength, type AcRopeControl } from './ac-sequence.js';
import { ModelOwner, loadOwned, type ModelOwnerOptions } from '../model-owner.js';
import { composePose } from './pose.js';

/** F.layer_norm's default eps: the planner's normalize_reps. */
export const AC_REPS_EPS = 1e-5;

export interface AcWorldModelOptions extends ModelOwnerOptions {
  kv?: 'f16' | 'f32';
  /** Negative controls only. */
  control?: { unmasked?: boolean; rope?: AcRopeControl; swapActionsStates?: boolean };
}

/** K candidates of T steps: tokens [K, T·H·W, D], actions [K, T, A], states [K, T, S], extrinsics [K, T, A − 1]. */
export interface AcSteps {
  candidates: number;
  steps: number;
  tokens: Float32Array;
  actions: Float32Array;
  states: Float32Array;
  extrinsics?: Float32Array;
}

export interface AcPredictOptions {
  /** Only the last step's H·W tokens: [K, H·W, D] (default: every step's, [K, T·H·W, D]). */
  lastStepOnly?: boolean;
  /** Through the planner's non-affine LayerNorm (default false: the predictor's own output). */
  normalize?: boolean;
}

export interface AcRolloutInput {
  /** Normalised tokens of the current frame: [H·W, D] for every candidate, or [K, H·W, D]. */
  context: Float32Array;
  /** The current pose: [7] for every candidate, or [K, 7]. */
  pose: Float32Array;
  /** [K, R, 7]. */
  actions: Float32Array;
  candidates: number;
  /** Camera extrinsics [A − 1], held for every step (models with the extrinsics token only). */
  extrinsics?: Float32Array;
}

export interface AcRollout {
  /** [K, R, H·W, D]: the predicted, normalised frames. */
  frames: Float32Array;
  /** [K, R + 1, 7]: the current pose, then one per action. */
  poses: Float32Array;
}

export interface AcPlanOptions extends AcCemOptions {
  context: Float32Array;
  goal: Float32Array;
  pose: Float32Array;
  extrinsics?: Float32Array;
  onIteration?: (it: AcCemIteration) => void;
}

/** One CEM step: its energies and elites, and the distribution after the refit ([rollout, 4]). */
export interface AcCemIteration extends CemIteration {
  mean: Float64Array;
  std: Float64Array;
}

export interface AcPlan {
  /** [rollout, 7]. */
  actions: Float32Array;
  /** The energy of the planned actions, rolled out once. */
  energy: number;
  iterations: AcCemIteration[];
  /** The final distribution, [rollout, 4] (x, y, z, gripper). */
  mean: Float64Array;
  std: Float64Array;
}

export class AcWorldModel extends ModelOwner<AcPredictorGraph> {
  readonly #p: AcPredictorHparams;
  readonly #options: AcWorldModelOptions;
  readonly #tableCache = new Map<number, { cos: Float32Array; sin: Float32Array; mask: Uint16Array }>();

  constructor(model: Model, options: AcWorldModelOptions = {}, ownsModel = false) {
    const p = model.spec.pred;
    if (p?.kind !== 'ac') throw new WorldModelError('NO_PREDICTOR', `${model.spec.name} has no V-JEPA 2-AC predictor`);
    super(model, options, ownsModel);
    this.#p = p;
    this.#options = options;
  }

  static load(path: string, options: AcWorldModelOptions & ModelLoadOptions = {}): Promise<AcWorldModel> {
    return loadOwned(path, options, (model) => new AcWorldModel(model, options, true));
  }

  get predictor(): AcPredictorHparams {
    return this.#p;
  }
  /** Encoder width D (the predictor's input and output). */
  get embedDim(): number {
    return this.model.spec.enc.embedDim;
  }
  get grid(): { h: number; w: number } {
    const g = this.model.spec.enc.gridSize;
    return { h: g, w: g };
  }
  get tokensPerFrame(): number {
    return this.grid.h * this.grid.w;
  }

  /** The most candidates of `steps` steps one predictor graph holds under JEPA_MAX_GRAPH_MIB. */
  candidatesPerGraph(steps: number): number {
    return this.#chunk(steps);
  }

  /** Frames [B, C, H, W] (preprocessed) -> normalised tokens [B, H·W, D], each frame encoded as a 2-frame clip. */
  async encodeFrames(frames: Float32Array, batch: number): Promise<Float32Array> {
    const e = this.model.spec.enc;
    const plane = e.imgSize * e.imgSize;
    const item = e.inChans * plane;
    if (frames.length !== batch * item)
      throw new WorldModelError(
        'BAD_INPUT',
        `${batch} frames of ${e.inChans}x${e.imgSize}x${e.imgSize} need ${batch * item} values, got ${frames.length}`,
      );
    const hw = this.tokensPerFrame;
    const D = e.embedDim;
    const out = new Float32Array(batch * hw * D);
    for (let b = 0; b < batch; b++) {
      const clip = new Float32Array(2 * item);
      for (let c = 0; c < e.inChans; c++) {
        const src = frames.subarray(b * item + c * plane, b * item + (c + 1) * plane);
        clip.set(src, 2 * c * plane);
        clip.set(src, (2 * c + 1) * plane);
      }
      const tokens = await this.encoder.encode({ data: clip, shape: [1, e.inChans, 2, e.imgSize, e.imgSize] });
      out.set(normalizeRows(tokens.item(0), D), b * hw * D);
    }
    return out;
  }

  /** The predictor over given steps (teacher forcing): [K, T·H·W, D], or [K, H·W, D] with lastStepOnly. */
  predict(input: AcSteps, options: AcPredictOptions = {}): Promise<Float32Array> {
    return this.runner.serial(() => this.#predict(input, options));
  }

  /**
   * The planner's rollout (world_model_wrapper.step_predictor, CEM's sample_action_traj): step h runs
   * the predictor on the h + 1 frames so far (the context and h predictions), actions and poses, keeps
   * the normalised last frame, and moves the pose by action h.
   */
  rollout(input: AcRolloutInput): Promise<AcRollout> {
    return this.runner.serial(() => this.#rollout(input));
  }

  /** Mean |frame − goal| over H·W·D for each of K frames [K, H·W, D]. */
  energy(frames: Float32Array, candidates: number, goal: Float32Array): Float32Array {
    const n = this.tokensPerFrame * this.embedDim;
    if (goal.length !== n)
      throw new WorldModelError('BAD_INPUT', `the goal must be [${this.tokensPerFrame}, ${this.embedDim}] tokens (${n} values), got ${goal.length}`);
    if (frames.length !== candidates * n) throw new WorldModelError('BAD_INPUT', `${candidates} frames need ${candidates * n} values`);
    const out = new Float32Array(candidates);
    for (let k = 0; k < candidates; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += Math.abs(frames[k * n + i]! - goal[i]!);
      out[k] = s / n;
    }
    return out;
  }

  /** CEM over [rollout, 7] actions toward the goal frame (mpc_utils.cem); each CEM step is one batched rollout per horizon step. */
  async plan(o: AcPlanOptions): Promise<AcPlan> {
    const s = acCemSettings(o);
    const rules = acCemRules(s);
    const R = s.rollout;
    const n = this.tokensPerFrame * this.embedDim;
    const lastFrames = (r: AcRollout, K: number) => {
      const out = new Float32Array(K * n);
      for (let k = 0; k < K; k++) out.set(r.frames.subarray((k * R + R - 1) * n, (k * R + R) * n), k * n);
      return out;
    };
    const ext = o.extrinsics ? { extrinsics: o.extrinsics } : {};
    const iterations: AcCemIteration[] = [];
    await runCem(
      async (candidates, count) => {
        const r = await this.rollout({ context: o.context, pose: o.pose, actions: candidates, candidates: count, ...ext });
        return this.energy(lastFrames(r, count), count, o.goal);
      },
      rules,
      (it) => {
        const record = { ...it, mean: rules.state.mean.slice(), std: rules.state.std.slice() };
        iterations.push(record);
        o.onIteration?.(record);
      },
    );
    const actions = rules.plan();
    const final = await this.rollout({ context: o.context, pose: o.pose, actions, candidates: 1, ...ext });
    return { actions, energy: this.energy(lastFrames(final, 1), 1, o.goal)[0]!, iterations, mean: rules.state.mean, std: rules.state.std };
  }

  async #predict(input: AcSteps, options: AcPredictOptions): Promise<Float32Array> {
    const p = this.#p;
    const { candidates: K, steps: T } = input;
    const hw = this.tokensPerFrame;
    const D = this.embedDim;
    const need = (what: string, got: number, dims: number[]) => {
      const want = dims.reduce((a, b) => a * b, 1);
      if (got !== want) throw new WorldModelError('BAD_INPUT', `${what} must be [${dims.join(', ')}] (${want} values), got ${got}`);
    };
    if (!(Number.isInteger(K) && K >= 1 && Number.isInteger(T) && T >= 1 && T <= p.maxSteps))
      throw new WorldModelError('BAD_INPUT', `the predictor takes 1..${p.maxSteps} steps of >= 1 candidates, got [${K}, ${T}]`);
    need('tokens', input.tokens.length, [K, T * hw, D]);
    need('actions', input.actions.length, [K, T, p.actionDim]);
    need('states', input.states.length, [K, T, p.stateDim]);
    if (p.extrinsics) {
      if (!input.extrinsics)
        throw new WorldModelError('BAD_INPUT', `this predictor has an extrinsics token: give extrinsics [K, T, ${p.actionDim - 1}]`);
      need('extrinsics', input.extrinsics.length, [K, T, p.actionDim - 1]);
    } else if (input.extrinsics) throw new WorldModelError('BAD_INPUT', 'this predictor has no extrinsics token; extrinsics were given');
    for (const [what, data] of [
      ['tokens', input.tokens],
      ['actions', input.actions],
      ['states', input.states],
      ['extrinsics', input.extrinsics],
    ] as const)
      if (data && !data.every(Number.isFinite)) throw new WorldModelError('BAD_INPUT', `${what} hold a value that is not finite`);

    const last = options.lastStepOnly ?? false;
    const outSteps = last ? 1 : T;
    const out = new Float32Array(K * outSteps * hw * D);
    // equal chunks, the last padded with copies of its final candidate: one graph (and one
    // allocation) per step count however K splits
    const chunks = Math.ceil(K / this.#chunk(T));
    const chunk = Math.ceil(K / chunks);
    const swap = this.#options.control?.swapActionsStates === true;
    const g = this.#graph(T, chunk, last, options.normalize ?? false);
    const tables = this.#tables(T);
    const slab = (data: Float32Array, width: number, start: number, k: number) => {
      const per = T * width;
      const rows = data.subarray(start * per, (start + k) * per);
      if (k === chunk) return rows;
      const padded = new Float32Array(chunk * per);
      padded.set(rows);
      for (let i = k; i < chunk; i++) padded.set(rows.subarray((k - 1) * per, k * per), i * per);
      return padded;
    };
    const outRow = outSteps * hw * D;
    const result = new Float32Array(chunk * outRow);
    for (let start = 0; start < K; start += chunk) {
      const k = Math.min(chunk, K - start);
      g.ropeCos.set(tables.cos);
      g.ropeSin.set(tables.sin);
      g.mask?.set(tables.mask);
      g.tokens.set(slab(input.tokens, hw * D, start, k));
      g.actions.set(slab(swap ? input.states : input.actions, p.actionDim, start, k));
      g.states.set(slab(swap ? input.actions : input.states, p.stateDim, start, k));
      if (g.extrinsics) g.extrinsics.set(slab(input.extrinsics!, p.actionDim - 1, start, k));
      await g.graph.compute(this.runner.backend);
      g.output.get(result);
      out.set(result.subarray(0, k * outRow), start * outRow);
    }
    return out;
  }

  async #rollout(input: AcRolloutInput): Promise<AcRollout> {
    const p = this.#p;
    const { candidates: K } = input;
    const hw = this.tokensPerFrame;
    const n = hw * this.embedDim;
    const A = AC_ACTION_DIM;
    if (p.actionDim !== A || p.stateDim !== A)
      throw new WorldModelError('BAD_INPUT', `the rollout moves 7-d poses; this predictor takes ${p.actionDim}-d actions and ${p.stateDim}-d states`);
    const R = input.actions.length / (K * A);
    if (!(Number.isInteger(R) && R >= 1 && R <= p.maxSteps))
      throw new WorldModelError('BAD_INPUT', `actions must be [${K}, R, 7] with 1 <= R <= ${p.maxSteps}, got ${input.actions.length} values`);
    const perCandidate = (data: Float32Array, width: number, what: string) => {
      if (data.length === width) return (_k: number) => data;
      if (data.length === K * width) return (k: number) => data.subarray(k * width, (k + 1) * width);
      throw new WorldModelError('BAD_INPUT', `${what} must hold ${width} values, or ${K * width} (one row per candidate), got ${data.length}`);
    };
    const context = perCandidate(input.context, n, 'the context frame');
    const pose0 = perCandidate(input.pose, A, 'the pose');
    const frames = new Float32Array(K * R * n);
    const poses = new Float32Array(K * (R + 1) * A);
    for (let k = 0; k < K; k++) poses.set(pose0(k), k * (R + 1) * A);
    for (let h = 0; h < R; h++) {
      const T = h + 1;
      const tokens = new Float32Array(K * T * n);
      const actions = new Float32Array(K * T * A);
      const states = new Float32Array(K * T * A);
      for (let k = 0; k < K; k++) {
        tokens.set(context(k), k * T * n);
        tokens.set(frames.subarray(k * R * n, (k * R + h) * n), (k * T + 1) * n);
        actions.set(input.actions.subarray(k * R * A, (k * R + T) * A), k * T * A);
        states.set(poses.subarray(k * (R + 1) * A, (k * (R + 1) + T) * A), k * T * A);
      }
      const extrinsics = input.extrinsics ? repeatRows(input.extrinsics, K * T) : undefined;
      const next = await this.#predict(
        { candidates: K, steps: T, tokens, actions, states, ...(extrinsics ? { extrinsics } : {}) },
        { lastStepOnly: true, normalize: true },
      );
      for (let k = 0; k < K; k++) {
        frames.set(next.subarray(k * n, (k + 1) * n), (k * R + h) * n);
        const at = k * (R + 1) + h;
        composePose(poses.subarray(at * A, (at + 1) * A), input.actions.subarray((k * R + h) * A, (k * R + h + 1) * A), poses, (at + 1) * A);
      }
    }
    return { frames, poses };
  }

  /** Candidates per graph: as many as JEPA_MAX_GRAPH_MIB holds at T steps. */
  #chunk(T: number): number {
    const p = this.#p;
    const n = acSequenceLength(p, { steps: T, ...this.grid });
    const flash = this.#flash();
    const perCandidate = 4 * n * (8 * p.embedDim + 2 * p.ffnDim + 3 * this.embedDim) + (flash ? 0 : 2 * 4 * n * n * p.nHead);
    const budget = this.model.runtime.maxGraphBytes;
    if (perCandidate > budget)
      throw new WorldModelError(
        'OVER_BUDGET',
        `one candidate of ${T} steps needs about ${Math.ceil(perCandidate / 2 ** 20)} MiB of graph memory, over JEPA_MAX_GRAPH_MIB=${budget / 2 ** 20}`,
      );
    return Math.max(1, Math.floor(budget / perCandidate));
  }

  #flash(): boolean {
    return !this.#options.noFlash;
  }

  #graph(T: number, K: number, last: boolean, normalize: boolean): AcPredictorGraph {
    const p = this.#p;
    const control = this.#options.control ?? {};
    const masked = p.frameCausal && !control.unmasked;
    return this.runner.graph(
      `ac:${T}:${K}:${last}:${normalize}`,
      (flash) => {
        const backend = this.runner.backend;
        const g = buildAcPredictorGraph(
          p,
          this.embedDim,
          this.model.weights,
          { steps: T, candidates: K, ...this.grid, lastStepOnly: last },
          {
            flash,
            kvType: kvTypeFor(this.model, this.#options.kv),
            precF32: !backend.isCpu && this.model.runtime.gpuPrecF32,
            masked,
            normalizeEps: normalize ? AC_REPS_EPS : null,
          },
        );
        return g;
      },
      this.#flash(),
    );
  }

  /** The RoPE rows and the mask of a T-step sequence, built once per T. */
  #tables(T: number): { cos: Float32Array; sin: Float32Array; mask: Uint16Array } {
    let t = this.#tableCache.get(T);
    if (!t) {
      const seq = { steps: T, ...this.grid };
      t = { ...acRopeTables(this.#p, seq, this.#options.control?.rope), mask: acFrameCausalMask(this.#p, seq) };
      this.#tableCache.set(T, t);
    }
    return t;
  }
}

function repeatRows(row: Float32Array, times: number): Float32Array {
  const out = new Float32Array(row.length * times);
  for (let i = 0; i < times; i++) out.set(row, i * row.length);
  return out;
}

/** The non-affine LayerNorm over each row of [rows, D], in double. */
export function normalizeRows(x: Float32Array, D: number, eps = AC_REPS_EPS): Float32Array {
  const out = new Float32Array(x.length);
  for (let r = 0; r < x.length / D; r++) {
    let m = 0;
    for (let i = 0; i < D; i++) m += x[r * D + i]!;
    m /= D;
    let v = 0;
    for (let i = 0; i < D; i++) v += (x[r * D + i]! - m) ** 2;
    const inv = 1 / Math.sqrt(v / D + eps);
    for (let i = 0; i < D; i++) out[r * D + i] = (x[r * D + i]! - m) * inv;
  }
  return out;
}
