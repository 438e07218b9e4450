// POST /v1/worldmodel/rollout and /plan: LeWorldModel over history frames, actions and a goal.
import { type RolloutActions, parseActions, parseItem, parseItems, planFields, readFields, requestActionStats, rolloutFields } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { encodeValues } from '../encoding.js';
import { badField } from '../errors.js';
import { objectBody, optionalChoice } from '../json.js';
import { callOf } from './call-options.js';
import { FORMATS } from './embedding-routes.js';
import type { ServerState } from './server-state.js';

export function worldmodelRoutes(app: FastifyInstance, state: ServerState): void {
  const { engine } = state;

  app.post('/v1/worldmodel/rollout', async (req, reply) => {
    const body = objectBody(req.body, [
      'model',
      'images',
      'actions',
      'random_actions',
      'horizon',
      'seed',
      'action_mean',
      'action_std',
      'goal',
      'encoding_format',
    ]);
    const slot = await engine.model(body.model);
    const wm = slot.world();
    const f = readFields(body, rolloutFields);
    const stats = requestActionStats(f.action_mean, f.action_std, wm.actionDim);
    const given = [body.actions, body.random_actions].filter((x) => x !== undefined && x !== null).length;
    if (given !== 1) throw badField('actions', 'give exactly one of "actions" or "random_actions"', 'missing_field');
    const images = parseItems(body.images, 'images', engine.maxQueue);
    const goal = body.goal === undefined || body.goal === null ? null : parseItem(body.goal, 'goal');
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    let actions: RolloutActions;
    if (body.random_actions !== undefined && body.random_actions !== null) {
      actions = { random: { candidates: f.random_actions ?? 1, horizon: f.horizon ?? 5, seed: f.seed ?? 0 } };
    } else actions = { given: parseActions(body.actions, 'actions', wm.actionDim) };
    const r = await engine.rollout({ model: slot.id, images, goal, actions, stats }, callOf(reply));
    return {
      object: 'worldmodel.rollout',
      model: r.model,
      history: r.history,
      shape: r.shape,
      rollout: encodeValues(r.rollout, r.shape, format),
      ...(r.costs ? { costs: Array.from(r.costs) } : {}),
      usage: r.usage,
    };
  });

  app.post('/v1/worldmodel/plan', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'images', 'goal', 'horizon', 'samples', 'iterations', 'top_k', 'seed', 'action_mean', 'action_std']);
    const slot = await engine.model(body.model);
    const f = readFields(body, planFields);
    const stats = requestActionStats(f.action_mean, f.action_std, slot.world().actionDim);
    const images = parseItems(body.images, 'images', engine.maxQueue);
    if (body.goal === undefined || body.goal === null) throw badField('goal', 'required: the plan heads toward the goal image', 'missing_field');
    const goal = parseItem(body.goal, 'goal');
    const r = await engine.plan(
      { model: slot.id, images, goal, horizon: f.horizon, samples: f.samples, iterations: f.iterations, topK: f.top_k, seed: f.seed, stats },
      callOf(reply),
    );
    return {
      object: 'worldmodel.plan',
      model: r.model,
      history: r.history,
      horizon: r.horizon,
      action_dim: r.actionDim,
      space: r.space,
      actions: encodeValues(r.actions, [r.horizon, r.actionDim], 'float'),
      best_costs: r.bestCosts,
      usage: r.usage,
    };
  });
}
