// The HTTP surface (fastify): hooks for draining, auth and metrics, the body parsers (JSON here, raw
// and multipart uploads in uploads.ts), the error shape, and the routes, each group in its own file.
import { createHash, timingSafeEqual } from 'node:crypto';
import { notFound, unavailable } from '@jepa/engine';
import { fastify, type FastifyInstance, type FastifyRequest } from 'fastify';
import { ApiError, toApiError } from '../errors.js';
import { parseJsonBody } from '../json.js';
import { headRoutes } from './classify-routes.js';
import { clientError } from './client-error.js';
import { embeddingRoutes } from './embedding-routes.js';
import { lingerAfterRefusal } from './linger.js';
import { modelRoutes } from './model-routes.js';
import { searchRoutes } from './search-routes.js';
import { type ServerState, phaseOf } from './server-state.js';
import { notReady, statusRoutes } from './status-routes.js';
import { uploadParsers } from './uploads.js';
import { webRoutes } from './web-routes.js';
import { worldmodelRoutes } from './worldmodel-routes.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function buildApp(state: ServerState): FastifyInstance {
  const requestTimeout = Math.max(state.engine.timeoutMs, 1000);
  const app = fastify({
    logger: false,
    bodyLimit: state.maxBodyBytes,
    requestTimeout,
    http: { requestTimeout, headersTimeout: Math.min(requestTimeout, 60_000), connectionsCheckingInterval: Math.min(1000, requestTimeout) },
    return503OnClosing: true,
    clientErrorHandler: (err, socket) => clientError(err, socket),
  });
  const keyDigest = state.apiKey === undefined ? null : digest(state.apiKey);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: state.maxBodyBytes }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  uploadParsers(app, state.maxBodyBytes, state.engine.maxQueue);

  app.addHook('onRequest', async (req, reply) => {
    const started = performance.now();
    state.metrics.inFlight.inc();
    reply.raw.once('close', () => {
      state.metrics.inFlight.dec();
      const route = routeOf(req);
      state.metrics.requestSeconds.observe({ route }, (performance.now() - started) / 1000);
      // 499 (nginx's "client closed request"): the client left before the answer was written
      state.metrics.requests.inc({ route, status: reply.raw.writableFinished ? String(reply.raw.statusCode) : '499' });
    });
    const path = req.url.split('?')[0];
    if (path === '/health') return;
    if (phaseOf(state) === 'draining') {
      reply.header('connection', 'close');
      throw unavailable('the server is shutting down', 'shutting_down');
    }
    const open = new Promise<void>((done) => reply.raw.once('close', done));
    state.open.add(open);
    void open.then(() => state.open.delete(open));
    if (keyDigest && !state.web?.has(path ?? '')) {
      const header = req.headers.authorization;
      const m = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null;
      if (!m)
        throw new ApiError(401, 'authentication_error', 'missing_api_key', 'send the API key as Authorization: Bearer KEY', null, {
          'www-authenticate': 'Bearer',
        });
      if (!timingSafeEqual(digest(m[1]!.trim()), keyDigest))
        throw new ApiError(401, 'authentication_error', 'invalid_api_key', 'the API key is not valid', null, { 'www-authenticate': 'Bearer' });
    }
    if (path?.startsWith('/v1/') && phaseOf(state) !== 'ready') throw notReady(state);
  });

  // a refused body is drained for up to 10 s and 2 × the limit (at least 64 MiB) before the close
  const linger = { maxBytes: Math.max(2 * state.maxBodyBytes, 64 * 2 ** 20), maxMs: 10_000 };
  app.setErrorHandler((err, req, reply) => {
    const api = toApiError(err);
    if (api.status === 413 && lingerAfterRefusal(req.raw, linger)) reply.header('connection', 'close');
    if (api.status >= 500 && api.code === 'internal_error') state.log(`internal error: ${describe((api as { cause?: unknown }).cause ?? err)}`);
    void reply.code(api.status).headers(api.headers).send(api.body());
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.length > 200 ? `${req.url.slice(0, 200)}…` : req.url;
    const e = toApiError(notFound(`no route ${req.method} ${url}`, 'route_not_found'));
    void reply.code(e.status).send(e.body());
  });

  statusRoutes(app, state);
  webRoutes(app, state);
  modelRoutes(app, state);
  embeddingRoutes(app, state);
  headRoutes(app, state);
  worldmodelRoutes(app, state);
  searchRoutes(app, state);
  return app;
}

function routeOf(req: FastifyRequest): string {
  return req.routeOptions.url ?? 'not_found';
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
