// GET /v1/models: the engine's model cards (loaded or not), each with the routes its model serves, then
// the `hf:` models the caches hold or a pull is fetching (whether downloaded, the pull's progress);
// POST /v1/models/{id}/load and /unload: a model into or out of memory at run time;
// POST /v1/models/load {"model": ...}: the same load for any name, an `hf:` one pulled and converted first.
import { type ModelCard, type Operation, badField, parseDuration } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { objectBody } from '../json.js';
import type { ServerState } from './server-state.js';

const ROUTES: Readonly<Record<Operation, readonly string[]>> = {
  embed: ['/v1/embeddings'],
  features: ['/v1/features'],
  classify: ['/v1/classify'],
  predict: ['/v1/predict'],
  rollout: ['/v1/worldmodel/rollout'],
  plan: ['/v1/worldmodel/plan'],
};

/** A card with the routes its model serves: a dino.txt model's zero-shot labels are /v1/classify's too. */
function httpCard({ operations, ...card }: ModelCard) {
  const ops = card.text && !operations.includes('classify') ? [...operations, 'classify' as const] : operations;
  return { ...card, endpoints: ops.flatMap((op) => ROUTES[op]) };
}

/** `keep_alive` of a load: seconds, or a duration ("5m", "0", "forever", -1). */
function keepAliveOf(body: unknown, known: readonly string[] = ['keep_alive']): number | undefined {
  if (body === undefined || body === null) return undefined;
  const v = objectBody(body, known).keep_alive;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' && typeof v !== 'string') throw badField('keep_alive', 'must be seconds or a duration such as "5m", "0" or "forever"');
  try {
    return parseDuration(v, 'keep_alive');
  } catch (err) {
    throw badField('keep_alive', (err as Error).message.replace(/^keep_alive: /, ''));
  }
}

export function modelRoutes(app: FastifyInstance, state: ServerState): void {
  const { engine } = state;
  app.get('/v1/models', async () => ({ object: 'list', data: [...(await engine.models()).map(httpCard), ...(await engine.hubModels())] }));
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (req) => httpCard(await engine.card(req.params.id)));
  // waits for the pull and the load (or the ones in progress); a model that does not fit gets 503
  app.post('/v1/models/load', async (req) => {
    const known = ['model', 'keep_alive'];
    const body = objectBody(req.body, known);
    if (typeof body.model !== 'string')
      throw badField('model', 'required: a served model id or an hf:ORG/NAME[@REVISION][:TYPE] name', 'missing_field');
    return httpCard(await engine.loadModel(body.model, keepAliveOf(body, known)));
  });
  // waits for the load (or the one in progress); a model that does not fit gets 503
  app.post<{ Params: { id: string } }>('/v1/models/:id/load', async (req) => httpCard(await engine.loadModel(req.params.id, keepAliveOf(req.body))));
  // waits for the requests using the model, then frees it; the next request loads it again
  app.post<{ Params: { id: string } }>('/v1/models/:id/unload', async (req) => {
    if (req.body !== undefined && req.body !== null) objectBody(req.body, []);
    return httpCard(await engine.unloadModel(req.params.id));
  });
}
