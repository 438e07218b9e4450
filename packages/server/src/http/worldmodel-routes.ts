// POST /v1/worldmodel/rollout and /plan: LeWorldModel over history frames, actions and a goal. Each
// body is read whole before the engine resolves the model, which checks the actions and their
// statistics against its action width: a bad body never loads it.
import { type RolloutActions, badField, parseItem, parseItems, planFields, readFields, rolloutFields } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { encodeValues } from '../encoding.js';
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
    const f = readFields(body, rolloutFields);
    const given = [body.actions, body.random_actions].filter((x) => x !== undefined && x !== null).length;
    if (given !== 1) throw badField('actions', 'give exactly one of "actions" or "random_actions"', 'missing_field');
    const images = parseItems(body.images, 'images', engine.maxQueue);
    const goal = body.goal === undefined || body.goal === null ? null : parseItem(body.goal, 'goal');
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    const actions: RolloutActions =
      body.random_actions !== undefined && body.random_actions !== null
        ? { random: { candidates: f.random_actions ?? 1, horizon: f.horizon ?? 5, seed: f.seed ?? 0 } }
        : { given: body.actions };
    const r = await engine.rollout({ model: body.model, images, goal, actions, actionMean: f.action_mean, actionStd: f.action_std }, callOf(reply));
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
    const f = readFields(body, planFields);
    const images = parseItems(body.images, 'images', engine.maxQueue);
    if (body.goal === undefined || body.goal === null) throw badField('goal', 'required: the plan heads toward the goal image', 'missing_field');
    const goal = parseItem(body.goal, 'goal');
    const r = await engine.plan(
      {
        model: body.model,
        images,
        goal,
        horizon: f.horizon,
        samples: f.samples,
        iterations: f.iterations,
        topK: f.top_k,
        seed: f.seed,
        actionMean: f.action_mean,
        actionStd: f.action_std,
      },
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
