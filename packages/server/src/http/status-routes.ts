// /health, /metrics and the debug memory route: answered in every phase, loading included (a load
// leaves the event loop free).
import { EngineError, unavailable } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { type ApiError, toApiError } from '../errors.js';
import { type ServerState, phaseOf } from './server-state.js';

export function notReady(state: ServerState): ApiError {
  const phase = phaseOf(state);
  if (phase === 'draining') return toApiError(unavailable('the server is shutting down', 'shutting_down'));
  if (phase === 'failed')
    return toApiError(new EngineError('load_failed', `the models failed to load: ${state.engine.loadError}`, { kind: 'unavailable' }));
  return toApiError(unavailable('the models are still loading', 'loading'));
}

export function statusRoutes(app: FastifyInstance, state: ServerState): void {
  app.get('/health', async (_req, reply) => {
    const phase = phaseOf(state);
    const { models: served, loaded, loading } = state.engine.residencies();
    // `ready`: the models in memory now; the others load on their first request
    const models = { models: served, ready: loaded, loading };
    if (phase === 'ready') return { status: 'ok', ...models };
    const e = notReady(state);
    return reply
      .code(503)
      .headers(e.headers)
      .send({ status: phase, ...models, ...e.body() });
  });

  app.get('/metrics', async (_req, reply) => {
    const text = await state.metrics.registry.metrics();
    return reply.type(state.metrics.registry.contentType).send(text);
  });

  if (state.debug) {
    app.get('/debug/memory', async () => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage();
    });
  }
}
