// GET /v1/models: the engine's model cards, each with the routes its model serves.
import type { ModelCard, Operation } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import type { ServerState } from './server-state.js';

const ROUTES: Readonly<Record<Operation, readonly string[]>> = {
  embed: ['/v1/embeddings'],
  features: ['/v1/features'],
  classify: ['/v1/classify'],
  predict: ['/v1/predict'],
  rollout: ['/v1/worldmodel/rollout'],
  plan: ['/v1/worldmodel/plan'],
};

function httpCard({ operations, ...card }: ModelCard) {
  return { ...card, endpoints: operations.flatMap((op) => ROUTES[op]) };
}

export function modelRoutes(app: FastifyInstance, state: ServerState): void {
  app.get('/v1/models', async () => ({ object: 'list', data: (await state.engine.models()).map(httpCard) }));
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (req) => {
    const card = (await state.engine.models()).find((c) => c.id === req.params.id);
    if (!card) throw notFound(`model '${req.params.id}' is not loaded`, 'model_not_found', 'model');
    return httpCard(card);
  });
}
