// LeWorldModel: rollouts of given or random action sequences from history frames, and CEM plans
// toward a goal frame. Frames become states as the CLI makes them: the encoder's CLS rows projected together.
import { type ActionStats, type WorldModel, denormalizeActions, normalSampler, normalizeActions, planCem } from '@jepa/worldmodel';
import { badField } from '../errors.js';
import { encodeItems } from '../items/encode-items.js';
import { type ParsedItem, refuseSampling } from '../items/parse-item.js';
import { Dropped } from '../queue/dropped.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { computeOnItems } from './compute-on-items.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';

/** Actions [K, T, A] row-major: given (in raw units when the request has statistics), or K random normal sequences. */
export type RolloutActions =
  | { given: { data: Float32Array; candidates: number; steps: number } }
  | { random: { candidates: number; horizon: number; seed: number } };

export interface RolloutRequest {
  model?: unknown;
  /** History frames, oldest first; only the model's last `history` are kept. */
  images: readonly ParsedItem[];
  /** The request field the frames came in, for refusals (default `images`). */
  imagesField?: string;
  goal?: ParsedItem | null | undefined;
  actions: RolloutActions;
  stats?: ActionStats | null | undefined;
}

export interface RolloutResult {
  model: string;
  history: number;
  /** [candidates, steps + 1, Dp]. */
  shape: [number, number, number];
  rollout: Float32Array;
  /** Each candidate's cost to the goal, with a goal. */
  costs: Float32Array | null;
  usage: Usage;
}

export interface PlanRequest {
  model?: unknown;
  images: readonly ParsedItem[];
  imagesField?: string;
  goal: ParsedItem;
  /** Steps planned (default 5, at least the history). */
  horizon?: number | undefined;
  samples?: number | undefined;
  iterations?: number | undefined;
  topK?: number | undefined;
  seed?: number | undefined;
  stats?: ActionStats | null | undefined;
  /** Also roll the planned sequence itself out and give its cost. */
  scorePlan?: boolean;
}

export interface PlanResult {
  model: string;
  history: number;
  horizon: number;
  actionDim: number;
  /** raw: the actions are in the statistics' units; model: in the model's own. */
  space: 'raw' | 'model';
  /** [horizon, actionDim]. */
  actions: Float32Array;
  bestCosts: number[];
  cost: number | null;
  usage: Usage;
}

/** History frames -> state embeddings [H, Dp], and the goal's [Dp] when there is one. */
async function worldInputs(
  core: EngineCore,
  slot: ModelSlot,
  wm: WorldModel,
  H: number,
  items: readonly ParsedItem[],
  field: string,
  scope: RequestScope,
) {
  const outs = (await encodeItems(core, slot, items, scope)).map((e) => e.out);
  const D = slot.spec.enc.embedDim;
  const cls = new Float32Array(H * D);
  for (let i = 0; i < H; i++) cls.set(outs[i]!.pool('cls'), i * D);
  const initial = await computeOnItems(field, () => core.lane.run(() => wm.project(cls, H)));
  const target = outs.length > H ? await computeOnItems('goal', () => core.lane.run(() => wm.project(outs[H]!.pool('cls'), 1))) : null;
  return { initial, target, outs };
}

export function rollout(core: EngineCore, req: RolloutRequest, call: CallOptions = {}): Promise<RolloutResult> {
  return core.withModel(req.model, (slot) => rolloutOn(core, slot, req, call));
}

async function rolloutOn(core: EngineCore, slot: ModelSlot, req: RolloutRequest, call: CallOptions): Promise<RolloutResult> {
  const wm = slot.world();
  const frames = req.images.slice(-wm.history);
  const A = wm.actionDim;
  let seqs: { data: Float32Array; candidates: number; steps: number };
  if ('random' in req.actions) {
    const { candidates, horizon, seed } = req.actions.random;
    const normal = normalSampler(seed);
    seqs = { data: Float32Array.from({ length: candidates * horizon * A }, normal), candidates, steps: horizon };
  } else {
    const raw = req.actions.given;
    seqs = req.stats ? { ...raw, data: normalizeActions(raw.data, req.stats) } : raw;
  }
  const items = req.goal ? [...frames, req.goal] : frames;
  refuseSampling(items);
  return core.scoped(items.length, call, async (scope) => {
    const H = frames.length;
    const { initial, target, outs } = await worldInputs(core, slot, wm, H, items, req.imagesField ?? 'images', scope);
    const rolled = await computeOnItems('actions', () => core.lane.run(() => wm.rollout({ data: initial, candidates: 1, steps: H }, seqs)));
    const steps = seqs.steps + 1;
    const costs = target ? wm.cost({ data: rolled, candidates: seqs.candidates, steps }, target) : null;
    core.metrics.itemsDone('rollout', items.length);
    return { model: slot.id, history: H, shape: [seqs.candidates, steps, wm.embedDim], rollout: rolled, costs, usage: usage(outs) };
  });
}

export function plan(core: EngineCore, req: PlanRequest, call: CallOptions = {}): Promise<PlanResult> {
  return core.withModel(req.model, (slot) => planOn(core, slot, req, call));
}

async function planOn(core: EngineCore, slot: ModelSlot, req: PlanRequest, call: CallOptions): Promise<PlanResult> {
  const wm = slot.world();
  const frames = req.images.slice(-wm.history);
  const H = frames.length;
  const horizon = Math.max(req.horizon ?? 5, H);
  const samples = req.samples ?? 300;
  const iterations = req.iterations ?? 30;
  const topk = req.topK ?? Math.min(30, samples);
  if (topk > samples) throw badField('top_k', `at most samples (${samples})`);
  const seed = req.seed ?? 0;
  const items = [...frames, req.goal];
  refuseSampling(items);
  return core.scoped(items.length, call, async (scope) => {
    const { initial, target, outs } = await worldInputs(core, slot, wm, H, items, req.imagesField ?? 'images', scope);
    // every iteration's batched rollout on the lane; a dropped request stops between them
    const rollCost = async (candidates: Float32Array, count: number) => {
      if (scope.dropped) throw new Dropped(scope.dropped);
      return core.lane.run(async () => {
        const rolled = await wm.rollout({ data: initial, candidates: 1, steps: H }, { data: candidates, candidates: count, steps: horizon });
        return wm.cost({ data: rolled, candidates: count, steps: horizon + 1 }, target!);
      });
    };
    const result = await computeOnItems('samples', () => planCem(rollCost, { horizon, actionDim: wm.actionDim, samples, iterations, topk, seed }));
    const cost = req.scorePlan ? (await computeOnItems('samples', () => rollCost(result.mean, 1)))[0]! : null;
    const actions = req.stats ? denormalizeActions(result.mean, req.stats) : result.mean;
    core.metrics.itemsDone('plan', items.length);
    return {
      model: slot.id,
      history: H,
      horizon,
      actionDim: wm.actionDim,
      space: req.stats ? 'raw' : 'model',
      actions,
      bestCosts: result.bestCosts,
      cost,
      usage: usage(outs),
    };
  });
}
