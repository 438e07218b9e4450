// The HTTP surface (fastify): hooks for draining, auth and metrics, the JSON body parser, the routes,
// and the answers in OpenAI's shapes.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { fastify, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { EncodeOutput, PoolMode } from '@jepa/graph';
import { checkPredictorInputSize, predictorTokens } from '@jepa/graph';
import { normalSampler, planCem, type WorldModel } from '@jepa/worldmodel';
import { encodeValues, type EncodingFormat } from './encoding.js';
import { featureMap } from './features.js';
import { ApiError, badField, fromFastify, internal, notFound, timedOut, unavailable } from './errors.js';
import { objectBody, optionalBool, optionalChoice, optionalInt, optionalNumbers, parseJsonBody, type Body } from './json.js';
import type { ServerMetrics } from './metrics.js';
import type { ModelRegistry, ModelSlot } from './server-context.js';
import type { Admission, ComputeLane } from './server-queue.js';
import type { WebPage } from './web-page.js';
import { Dropped, computeOnItems, rejectOnDrop } from './server-queue.js';
import {
  RequestScope,
  encodeItems,
  encodePlanned,
  type EncodedItem,
  parseActions,
  parseIds,
  parseItem,
  parseItems,
  planItems,
  type ItemLoader,
  type ParsedItem,
  type PlannedItems,
  refuseSampling,
} from './server-task.js';

export type Phase = 'loading' | 'ready' | 'failed' | 'draining';

/** What the routes share; server.ts owns it. */
export interface ServerState {
  readonly registry: ModelRegistry;
  readonly loader: ItemLoader;
  readonly admission: Admission;
  readonly lane: ComputeLane;
  readonly metrics: ServerMetrics;
  readonly maxQueue: number;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly apiKey: string | undefined;
  readonly log: (line: string) => void;
  /** GET /debug/memory (a full GC when node runs with --expose-gc, then process.memoryUsage()): for the leak test only. */
  readonly debug: boolean;
  /** The page at / (dist/web): public, its API calls are not. Null where it was not built. */
  readonly web: WebPage | null;
  phase: Phase;
  loadError: string | null;
  /** Requests holding queue places, so a shutdown past its bound can drop them. */
  readonly active: Set<RequestScope>;
  /** One promise per request let in (not /health, not the 503s of a drain), settled when its response closes. */
  readonly open: Set<Promise<void>>;
}

const FORMATS: readonly EncodingFormat[] = ['float', 'base64'];
type Pool = PoolMode | 'none' | 'lewm';
const POOLS: readonly Pool[] = ['mean', 'cls', 'none', 'lewm'];

const digest = (s: string) => createHash('sha256').update(s).digest();

export function buildApp(state: ServerState): FastifyInstance {
  const requestTimeout = Math.max(state.timeoutMs, 1000);
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
    if (state.phase === 'draining') {
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
    if (path?.startsWith('/v1/') && state.phase !== 'ready') throw notReady(state);
  });

  app.setErrorHandler((err, _req, reply) => {
    const api = err instanceof ApiError ? err : (fromFastify(err as object) ?? internal(err));
    if (api.status >= 500 && api.code === 'internal_error') state.log(`internal error: ${describe((api as { cause?: unknown }).cause ?? err)}`);
    void reply.code(api.status).headers(api.headers).send(api.body());
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.length > 200 ? `${req.url.slice(0, 200)}…` : req.url;
    const e = notFound(`no route ${req.method} ${url}`, 'route_not_found');
    void reply.code(404).send(e.body());
  });

  app.get('/health', async (_req, reply) => {
    if (state.phase === 'ready') return { status: 'ok', models: state.registry.size };
    const e = notReady(state);
    return reply
      .code(503)
      .headers(e.headers)
      .send({ status: state.phase, ...e.body() });
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

  // the web page: a few files read once, served with their types; the page asks for the key itself
  app.get('/', async (_req, reply) => sendWeb(state, reply, '/'));
  app.get<{ Params: { file: string } }>('/web/:file', async (req, reply) => sendWeb(state, reply, `/web/${req.params.file}`));

  app.get('/v1/models', async () => ({ object: 'list', data: state.registry.cards() }));
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (req) => state.registry.card(req.params.id));

  const scoped = <T>(reply: FastifyReply, items: number, work: (scope: RequestScope) => Promise<T>) => runScoped(state, reply, items, work);

  app.post('/v1/embeddings', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'pool', 'normalize', 'encoding_format']);
    const slot = state.registry.get(body.model);
    const spec = slot.spec;
    const pool = optionalChoice(body, 'pool', POOLS, undefined) ?? (spec.enc.nCls > 0 ? 'cls' : 'mean');
    if (pool === 'cls' && spec.enc.nCls === 0) throw badField('pool', `${spec.family} models have no CLS token; use "mean"`);
    if (pool === 'lewm' && spec.pred?.kind !== 'action') throw badField('pool', `"lewm" needs a LeWorldModel; this is ${spec.family}`);
    const normalize = optionalBool(body, 'normalize', false);
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    const items = parseItems(body.input, 'input', state.maxQueue);
    return planned(await planItems(state.loader, slot, items, state.maxQueue), (plan) =>
      scoped(reply, plan.count, async (scope) => {
        const { encoded, warnings } = await encodePlanned(state, slot, plan, scope);
        const outs = encoded.map((e) => e.out);
        const vectors = await pooled(state.lane, slot, outs, pool);
        if (normalize) for (const v of vectors) l2NormalizeRows(v.values, v.shape[v.shape.length - 1]!);
        state.metrics.items.inc({ route: '/v1/embeddings' }, encoded.length);
        return {
          object: 'list',
          data: vectors.map((v, i) => ({
            object: 'embedding',
            index: encoded[i]!.index,
            ...encoded[i]!.place,
            embedding: encodeValues(v.values, v.shape, format),
            shape: v.shape,
          })),
          model: slot.id,
          usage: usage(outs),
          ...(warnings.length > 0 ? { warnings } : {}),
        };
      }),
    );
  });

  // the PCA map of each item's patch features (packages/graph/src/pca.ts has the rule), as PNGs
  app.post('/v1/features', async (req, reply) => {
    const started = performance.now();
    const body = objectBody(req.body, ['model', 'input']);
    const slot = state.registry.get(body.model);
    const items = parseItems(body.input, 'input', state.maxQueue);
    refuseSampling(items);
    return scoped(reply, items.length, async (scope) => {
      const encoded = await encodeItems(state, slot, items, scope);
      const encodedAt = performance.now();
      const maps = await computeOnItems('input', async () => encoded.map((e) => featureMap(slot.spec, e.out, e.shape, e.data)));
      state.metrics.items.inc({ route: '/v1/features' }, items.length);
      return {
        object: 'list',
        data: maps.map((m, index) => ({
          object: 'features.pca',
          index,
          width: m.width,
          height: m.height,
          grid: m.grid,
          explained_variance: m.explained,
          png: m.png.toString('base64'),
          view: m.view.toString('base64'),
        })),
        model: slot.id,
        timing: {
          encode_ms: encodedAt - started,
          pca_ms: maps.reduce((t, m) => t + m.ms, 0),
          total_ms: performance.now() - started,
        },
        usage: usage(encoded.map((e) => e.out)),
      };
    });
  });

  app.post('/v1/classify', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'top_k', 'logits']);
    const slot = state.registry.get(body.model);
    const head = slot.head();
    const classes = slot.spec.head!.nClasses;
    const k = optionalInt(body, 'top_k', Math.min(5, classes), 1, classes);
    const withLogits = optionalBool(body, 'logits', false);
    const items = parseItems(body.input, 'input', state.maxQueue);
    return planned(await planItems(state.loader, slot, items, state.maxQueue), (plan) =>
      scoped(reply, plan.count, async (scope) => {
        const { encoded, warnings } = await encodePlanned(state, slot, plan, scope);
        const outs = encoded.map((e) => e.out);
        const results = await computeOnItems('input', () =>
          state.lane.run(async () => {
            const all = [];
            for (const out of outs) all.push((await head.classify(out, k))[0]!);
            return all;
          }),
        );
        state.metrics.items.inc({ route: '/v1/classify' }, encoded.length);
        return {
          object: 'list',
          data: results.map((r, i) => ({
            object: 'classification',
            index: encoded[i]!.index,
            ...encoded[i]!.place,
            top: r.top.map((c) => ({ label: c.label, index: c.index, prob: c.prob, logit: c.logit })),
            ...(withLogits ? { logits: Array.from(r.logits) } : {}),
          })),
          model: slot.id,
          usage: usage(outs),
          ...(warnings.length > 0 ? { warnings } : {}),
        };
      }),
    );
  });

  app.post('/v1/predict', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'context', 'target', 'mask_index', 'encoding_format']);
    const slot = state.registry.get(body.model);
    const predictor = slot.predictor();
    const items = parseItems(body.input, 'input', 1);
    refuseSampling(items);
    const contextIds = parseIds(body.context, 'context');
    const targetIds = parseIds(body.target, 'target');
    const maskIndex = body.mask_index === undefined ? undefined : optionalInt(body, 'mask_index', 0, -(2 ** 31), 2 ** 31 - 1);
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    return scoped(reply, 1, async (scope) => {
      const [{ out, shape }] = (await encodeItems(state, slot, items, scope, slot.predictorBatcher())) as [EncodedItem];
      const oneFrame = shape.length === 3 || shape[1] === 1;
      const result = await computeOnItems('input', () =>
        state.lane.run(() => {
          checkPredictorInputSize(slot.spec, shape);
          return predictor.predict({
            ...predictorTokens(out),
            contextIds,
            targetIds,
            ...(maskIndex !== undefined ? { maskIndex } : {}),
            modality: oneFrame ? 'image' : 'video',
          });
        }),
      );
      state.metrics.items.inc({ route: '/v1/predict' }, 1);
      const dims = [targetIds.length, result.outDim];
      return {
        object: 'prediction',
        model: slot.id,
        target_ids: targetIds,
        shape: dims,
        predictions: encodeValues(result.targets, dims, format),
        usage: usage([out]),
      };
    });
  });

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
    const slot = state.registry.get(body.model);
    const wm = slot.world();
    const stats = actionStats(body, wm.actionDim);
    const given = [body.actions, body.random_actions].filter((x) => x !== undefined && x !== null).length;
    if (given !== 1) throw badField('actions', 'give exactly one of "actions" or "random_actions"', 'missing_field');
    const frames = historyFrames(body, wm, state.maxQueue);
    const goal = body.goal === undefined || body.goal === null ? null : parseItem(body.goal, 'goal');
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    let seqs: { data: Float32Array; candidates: number; steps: number };
    if (body.random_actions !== undefined && body.random_actions !== null) {
      const K = optionalInt(body, 'random_actions', 1, 1, 4096);
      const horizon = optionalInt(body, 'horizon', 5, 1, 1024);
      const normal = normalSampler(optionalInt(body, 'seed', 0, -(2 ** 31), 2 ** 31 - 1));
      seqs = { data: Float32Array.from({ length: K * horizon * wm.actionDim }, normal), candidates: K, steps: horizon };
    } else {
      const raw = parseActions(body.actions, 'actions', wm.actionDim);
      seqs = stats ? { ...raw, data: normalizeActions(raw.data, stats) } : raw;
    }
    const items = goal ? [...frames, goal] : frames;
    refuseSampling(items);
    return scoped(reply, items.length, async (scope) => {
      const { initial, target, outs } = await worldInputs(state, slot, wm, frames.length, items, goal !== null, scope);
      const H = frames.length;
      const rolled = await computeOnItems('actions', () => state.lane.run(() => wm.rollout({ data: initial, candidates: 1, steps: H }, seqs)));
      const steps = seqs.steps + 1;
      const costs = target ? wm.cost({ data: rolled, candidates: seqs.candidates, steps }, target) : null;
      state.metrics.items.inc({ route: '/v1/worldmodel/rollout' }, items.length);
      const dims = [seqs.candidates, steps, wm.embedDim];
      return {
        object: 'worldmodel.rollout',
        model: slot.id,
        history: H,
        shape: dims,
        rollout: encodeValues(rolled, dims, format),
        ...(costs ? { costs: Array.from(costs) } : {}),
        usage: usage(outs),
      };
    });
  });

  app.post('/v1/worldmodel/plan', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'images', 'goal', 'horizon', 'samples', 'iterations', 'top_k', 'seed', 'action_mean', 'action_std']);
    const slot = state.registry.get(body.model);
    const wm = slot.world();
    const stats = actionStats(body, wm.actionDim);
    const frames = historyFrames(body, wm, state.maxQueue);
    if (body.goal === undefined || body.goal === null) throw badField('goal', 'required: the plan heads toward the goal image', 'missing_field');
    const goal = parseItem(body.goal, 'goal');
    const H = frames.length;
    const horizon = Math.max(optionalInt(body, 'horizon', 5, 1, 1024), H);
    const samples = optionalInt(body, 'samples', 300, 2, 4096);
    const iterations = optionalInt(body, 'iterations', 30, 1, 1000);
    const topk = optionalInt(body, 'top_k', Math.min(30, samples), 2, samples);
    const seed = optionalInt(body, 'seed', 0, -(2 ** 31), 2 ** 31 - 1);
    const items = [...frames, goal];
    refuseSampling(items);
    return scoped(reply, items.length, async (scope) => {
      const { initial, target, outs } = await worldInputs(state, slot, wm, H, items, true, scope);
      // wm.plan, with every iteration's batched rollout on the lane and a dropped request stopping between them
      const result = await computeOnItems('samples', () =>
        planCem(
          async (candidates, count) => {
            if (scope.dropped) throw new Dropped(scope.dropped);
            return state.lane.run(async () => {
              const rolled = await wm.rollout({ data: initial, candidates: 1, steps: H }, { data: candidates, candidates: count, steps: horizon });
              return wm.cost({ data: rolled, candidates: count, steps: horizon + 1 }, target!);
            });
          },
          { horizon, actionDim: wm.actionDim, samples, iterations, topk, seed },
        ),
      );
      const actions = stats ? denormalizeActions(result.mean, stats) : result.mean;
      state.metrics.items.inc({ route: '/v1/worldmodel/plan' }, items.length);
      return {
        object: 'worldmodel.plan',
        model: slot.id,
        history: H,
        horizon,
        action_dim: wm.actionDim,
        space: stats ? 'raw' : 'model',
        actions: encodeValues(actions, [horizon, wm.actionDim], 'float'),
        best_costs: result.bestCosts,
        usage: usage(outs),
      };
    });
  });

  return app;
}

function notReady(state: ServerState): ApiError {
  if (state.phase === 'draining') return unavailable('the server is shutting down', 'shutting_down');
  if (state.phase === 'failed') return new ApiError(503, 'server_error', 'load_failed', `the models failed to load: ${state.loadError}`);
  return unavailable('the models are still loading', 'loading');
}

function sendWeb(state: ServerState, reply: FastifyReply, path: string) {
  const file = state.web?.get(path);
  if (!file) {
    const e = notFound(
      state.web ? `no route GET ${path.slice(0, 200)}` : 'the web page is not built (pnpm --filter @jepa/server build writes dist/web)',
      'route_not_found',
    );
    return reply.code(404).send(e.body());
  }
  return reply
    .type(file.type)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'")
    .send(file.bytes);
}

function routeOf(req: FastifyRequest): string {
  return req.routeOptions.url ?? 'not_found';
}

/**
 * Runs a request's work holding its items' place in the queue, with its deadline and its client's
 * disconnect wired to drop whatever of it is still queued.
 */
async function runScoped<T>(state: ServerState, reply: FastifyReply, items: number, work: (scope: RequestScope) => Promise<T>): Promise<T> {
  const scope = new RequestScope(state.admission.reserve(items));
  const timer = setTimeout(() => scope.drop('deadline'), state.timeoutMs);
  const onClose = () => {
    if (!reply.raw.writableFinished) scope.drop('disconnect');
  };
  reply.raw.once('close', onClose);
  state.active.add(scope);
  const running = work(scope);
  running.catch(() => {});
  try {
    return await Promise.race([running, rejectOnDrop(scope.signal)]);
  } catch (err) {
    const reason = scope.dropped;
    if (reason === 'deadline') throw timedOut(state.timeoutMs);
    if (reason === 'shutdown') throw unavailable('the server is shutting down', 'shutting_down');
    if (err instanceof Dropped) throw unavailable(`the request was dropped (${err.reason})`, 'dropped');
    throw err;
  } finally {
    clearTimeout(timer);
    reply.raw.off('close', onClose);
    state.active.delete(scope);
    scope.ticket.releaseAll();
  }
}

/** A request's work on its planned items; their decodes stop and their temp files go once it ends, however it ends. */
async function planned<T>(plan: PlannedItems, work: (plan: PlannedItems) => Promise<T>): Promise<T> {
  try {
    return await work(plan);
  } finally {
    await plan.close();
  }
}

function usage(outs: readonly EncodeOutput[]): { items: number; tokens: number } {
  return { items: outs.length, tokens: outs.reduce((n, o) => n + o.nTokens, 0) };
}

interface Vector {
  values: Float32Array;
  shape: number[];
}

/** As `jepa embed --pool`: mean or CLS rows, every token, or the LeWM state of the request's items projected together. */
async function pooled(lane: ComputeLane, slot: ModelSlot, outs: readonly EncodeOutput[], pool: Pool): Promise<Vector[]> {
  if (pool === 'none') return outs.map((o) => ({ values: o.item(0), shape: [o.nTokens, o.dim] }));
  if (pool !== 'lewm') return outs.map((o) => ({ values: o.pool(pool), shape: [o.dim] }));
  const D = slot.spec.enc.embedDim;
  const cls = new Float32Array(outs.length * D);
  for (const [i, o] of outs.entries()) cls.set(o.pool('cls'), i * D);
  const world = slot.world();
  const states = await computeOnItems('input', () => lane.run(() => world.project(cls, outs.length)));
  const Dp = world.embedDim;
  return outs.map((_, i) => ({ values: states.slice(i * Dp, (i + 1) * Dp), shape: [Dp] }));
}

function l2NormalizeRows(values: Float32Array, width: number): void {
  for (let r = 0; r < values.length; r += width) {
    let s = 0;
    for (let d = 0; d < width; d++) s += values[r + d]! * values[r + d]!;
    const n = Math.sqrt(s);
    if (n > 0) for (let d = 0; d < width; d++) values[r + d] = values[r + d]! / n;
  }
}

interface ActionStats {
  mean: number[];
  std: number[];
}

function actionStats(body: Body, A: number): ActionStats | null {
  const mean = optionalNumbers(body, 'action_mean', A);
  const std = optionalNumbers(body, 'action_std', A);
  if ((mean === undefined) !== (std === undefined))
    throw badField(mean ? 'action_std' : 'action_mean', 'give action_mean and action_std together', 'missing_field');
  if (!mean || !std) return null;
  std.forEach((s, i) => {
    if (s === 0) throw badField(`action_std[${i}]`, 'must not be 0');
  });
  return { mean, std };
}

/** As WorldModel.normalizeActions / denormalizeActions, with the request's statistics. */
function normalizeActions(raw: Float32Array, s: ActionStats): Float32Array {
  const A = s.mean.length;
  return Float32Array.from(raw, (v, i) => (v - s.mean[i % A]!) / s.std[i % A]!);
}

function denormalizeActions(actions: Float32Array, s: ActionStats): Float32Array {
  const A = s.mean.length;
  return Float32Array.from(actions, (v, i) => v * s.std[i % A]! + s.mean[i % A]!);
}

/** `images`: the history frames, oldest first; only the last `history` are kept, as the CLI keeps them. */
function historyFrames(body: Body, wm: WorldModel, maxItems: number): ParsedItem[] {
  const all = parseItems(body.images, 'images', maxItems);
  return all.slice(-wm.history);
}

/** History frames -> state embeddings [H, Dp] (projected together, as the CLI does), and the goal's [Dp]. */
async function worldInputs(
  state: ServerState,
  slot: ModelSlot,
  wm: WorldModel,
  H: number,
  items: ParsedItem[],
  withGoal: boolean,
  scope: RequestScope,
) {
  const outs = (await encodeItems(state, slot, items, scope)).map((e) => e.out);
  const D = slot.spec.enc.embedDim;
  const cls = new Float32Array(H * D);
  for (let i = 0; i < H; i++) cls.set(outs[i]!.pool('cls'), i * D);
  const initial = await computeOnItems('images', () => state.lane.run(() => wm.project(cls, H)));
  const target = withGoal ? await computeOnItems('goal', () => state.lane.run(() => wm.project(outs[H]!.pool('cls'), 1))) : null;
  return { initial, target, outs };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Malformed HTTP (before fastify has a request): answered in the same error shape, then closed. */
function clientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'the headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'the request was not received in time']
        : err.code === 'HPE_INVALID_EOF_STATE'
          ? [400, 'Bad Request', 'truncated_body', 'body: the connection ended before Content-Length bytes arrived']
          : [400, 'Bad Request', 'bad_http', 'malformed HTTP request'];
  const body = JSON.stringify(new ApiError(status, 'invalid_request_error', code, message).body());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
