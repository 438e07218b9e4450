// LeWorldModel: rollouts of given or random action sequences from history frames, and CEM plans
// toward a goal frame. Frames become states as the CLI makes them: the encoder's CLS rows projected together.
// What depends on the model (its action width) is checked on its header, before it loads.
import { type ActionStats, type WorldModel, denormalizeActions, normalSampler, normalizeActions, planCem } from '@jepa/worldmodel';
import type { ActionPredictorHparams } from '@jepa/gguf';
import { requirePart } from '@jepa/session';
import { badField } from '../errors.js';
import { encodeItems } from '../items/encode-items.js';
import { parseActions } from '../items/parse-actions.js';
import { type ParsedItem, refuseSampling } from '../items/parse-item.js';
import { Dropped } from '../queue/dropped.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { requestActionStats } from './action-stats.js';
import { computeOnItems } from './compute-on-items.js';
import { type CallOptions, type EngineCore, type ModelHeader, type Usage, usage } from './engine-core.js';

/**
 * Actions: given as a request carries them (in raw units when the request has statistics): [T][A] or
 * [K][T][A] numbers, or a base64 float32 .npy [T, A] or [K, T, A], A the model's action width; or K
 * random normal sequences.
 */
export type RolloutActions = { given: unknown } | { random: RandomActions };

export interface RandomActions {
  candidates: number;
  horizon: number;
  seed: number;
}

/** The request's action statistics (raw units): both or neither, the model's action width each. */
export interface ActionStatsFields {
  actionMean?: readonly number[] | undefined;
  actionStd?: readonly number[] | undefined;
}

export interface RolloutRequest extends ActionStatsFields {
  model?: unknown;
  /** History frames, oldest first; only the model's last `history` are kept. */
  images: readonly ParsedItem[];
  /** The request field the frames came in, for refusals (default `images`). */
  imagesField?: string;
  goal?: ParsedItem | null | undefined;
  actions: RolloutActions;
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

export interface PlanRequest extends ActionStatsFields {
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

/**
 * The request checked against the model's header, before the model loads: a model that is not a
 * LeWorldModel is refused, and so are statistics that are not its action width; the frames it keeps.
 */
function worldRequest({ id, spec }: ModelHeader, req: RolloutRequest | PlanRequest) {
  requirePart(spec, id, 'world');
  const { actionDim, nFrames } = spec.pred as ActionPredictorHparams;
  const stats = requestActionStats(req.actionMean, req.actionStd, actionDim);
  const frames = req.images.slice(-nFrames);
  return { actionDim, stats, frames, items: req.goal ? [...frames, req.goal] : frames };
}

type ActionSeqs = { data: Float32Array; candidates: number; steps: number };

export async function rollout(core: EngineCore, req: RolloutRequest, call: CallOptions = {}): Promise<RolloutResult> {
  const header = await core.header(req.model);
  const { actionDim, stats, frames, items } = worldRequest(header, req);
  const actions = 'given' in req.actions ? { given: parseActions(req.actions.given, 'actions', actionDim) } : req.actions;
  refuseSampling(items);
  const field = req.imagesField ?? 'images';
  return core.withModel(header.id, (slot) => rolloutOn(core, slot, { frames, items, field }, actions, stats, call));
}

async function rolloutOn(
  core: EngineCore,
  slot: ModelSlot,
  { frames, items, field }: { frames: readonly ParsedItem[]; items: readonly ParsedItem[]; field: string },
  actions: { given: ActionSeqs } | { random: RandomActions },
  stats: ActionStats | null,
  call: CallOptions,
): Promise<RolloutResult> {
  const wm = slot.world();
  const A = wm.actionDim;
  let seqs: ActionSeqs;
  if ('random' in actions) {
    const { candidates, horizon, seed } = actions.random;
    const normal = normalSampler(seed);
    seqs = { data: Float32Array.from({ length: candidates * horizon * A }, normal), candidates, steps: horizon };
  } else seqs = stats ? { ...actions.given, data: normalizeActions(actions.given.data, stats) } : actions.given;
  return core.scoped(items.length, call, async (scope) => {
    const H = frames.length;
    const { initial, target, outs } = await worldInputs(core, slot, wm, H, items, field, scope);
    const rolled = await computeOnItems('actions', () => core.lane.run(() => wm.rollout({ data: initial, candidates: 1, steps: H }, seqs)));
    const steps = seqs.steps + 1;
    const costs = target ? wm.cost({ data: rolled, candidates: seqs.candidates, steps }, target) : null;
    core.metrics.itemsDone('rollout', items.length);
    return { model: slot.id, history: H, shape: [seqs.candidates, steps, wm.embedDim], rollout: rolled, costs, usage: usage(outs) };
  });
}

export async function plan(core: EngineCore, req: PlanRequest, call: CallOptions = {}): Promise<PlanResult> {
  const header = await core.header(req.model);
  const { stats, frames, items } = worldRequest(header, req);
  const samples = req.samples ?? 300;
  const topk = req.topK ?? Math.min(30, samples);
  if (topk > samples) throw badField('top_k', `at most samples (${samples})`);
  refuseSampling(items);
  return core.withModel(header.id, (slot) => planOn(core, slot, req, frames, items, stats, { samples, topk }, call));
}

async function planOn(
  core: EngineCore,
  slot: ModelSlot,
  req: PlanRequest,
  frames: readonly ParsedItem[],
  items: readonly ParsedItem[],
  stats: ActionStats | null,
  { samples, topk }: { samples: number; topk: number },
  call: CallOptions,
): Promise<PlanResult> {
  const wm = slot.world();
  const H = frames.length;
  const horizon = Math.max(req.horizon ?? 5, H);
  const iterations = req.iterations ?? 30;
  const seed = req.seed ?? 0;
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
    const actions = stats ? denormalizeActions(result.mean, stats) : result.mean;
    core.metrics.itemsDone('plan', items.length);
    return {
      model: slot.id,
      history: H,
      horizon,
      actionDim: wm.actionDim,
      space: stats ? 'raw' : 'model',
      actions,
      bestCosts: result.bestCosts,
      cost,
      usage: usage(outs),
    };
  });
}
