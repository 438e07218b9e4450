// The web page: a few files read once, served with their types; the page asks for the key itself.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '@jepa/engine';
import { toApiError } from '../errors.js';
import type { ServerState } from './server-state.js';

export function webRoutes(app: FastifyInstance, state: ServerState): void {
  app.get('/', async (_req, reply) => sendWeb(state, reply, '/'));
  app.get<{ Params: { file: string } }>('/web/:file', async (req, reply) => sendWeb(state, reply, `/web/${req.params.file}`));
}

function sendWeb(state: ServerState, reply: FastifyReply, path: string) {
  const file = state.web?.get(path);
  if (!file) {
    const e = toApiError(
      notFound(
        state.web ? `no route GET ${path.slice(0, 200)}` : 'the web page is not built (pnpm --filter @jepa/server build writes dist/web)',
        'route_not_found',
      ),
    );
    return reply.code(e.status).send(e.body());
  }
  return reply
    .type(file.type)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'")
    .send(file.bytes);
}
