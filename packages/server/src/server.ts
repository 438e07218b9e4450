// createServer: checks the options, listens (answering 503 while the engine loads the models), and
// closes in order: refuse new requests, let in-flight ones finish, stop listening, close the engine.
import { Engine, type HubSettings } from '@jepa/engine';
import { buildApp } from './http/app.js';
import type { ServerState } from './http/server-state.js';
import { ServerMetrics, engineMetrics } from './metrics.js';
import { loadWebPage } from './web-page.js';

export interface ServerOptions {
  /**
   * Model files to serve, loaded at start-up (`ready` waits for them), each known by its file name without
   * `.gguf`; and `hf:ORG/NAME[@REVISION][:TYPE]` names, pulled and converted first, each known by its reference.
   */
  models?: readonly string[];
  /** A folder whose every `.gguf` is served too, each loaded on its first request. */
  modelsDir?: string;
  /** Idle time after which a model unloads, in ms (default Infinity: never; 0: after each request). */
  keepAliveMs?: number;
  /** Per-model keep-alive in ms, by model id. */
  keepAliveById?: ReadonlyMap<string, number>;
  /** The most bytes the loaded models' weights may hold together; a load past it evicts the least recently used idle model (default: no cap). */
  maxModelBytes?: number;
  /** Default 127.0.0.1: loopback unless told otherwise. */
  host?: string;
  /** Default 8080; 0 picks a free port (see `port` on the result). */
  port?: number;
  /** Still images per encoder graph (default 8). */
  maxBatch?: number;
  /** How long a graph waits for more stills once the first has arrived (default 5 ms). */
  maxWaitMs?: number;
  /** Items admitted at once (decoding, queued or running); beyond it requests get 429 (default 256). */
  maxQueue?: number;
  /** Largest request body (default 64 MiB); larger ones get 413. */
  maxBodyMb?: number;
  /** A request not answered within this gets 504 and its compute is stopped (default 30 000 ms); a request's `timeout` may shorten it. */
  timeoutMs?: number;
  /** When set, every route but /health wants `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** Folders whose files `{path}` items may name (default none: path items are refused). */
  allowPaths?: readonly string[];
  /** CPU threads per model context (default: the CPUs the process may use, a CFS quota rounded up). */
  threads?: number;
  /** `cpu`, `cuda`, `cuda:N` (default JEPA_DEVICE, else the CPU). */
  device?: string;
  /** After the drain of timeoutMs, how long close() gives what is left before dropping it (default 5000 ms). */
  shutdownGraceMs?: number;
  /** The folder of the page served at / (default: dist/web of this package; the page is left out where it is not built). */
  webDir?: string;
  /** An index folder (@jepa/search) for POST /v1/search and POST /v1/index; made by the first add when missing. */
  index?: string;
  /** Where the server reports internal errors (default: nowhere). */
  log?: (line: string) => void;
  /**
   * Models named `hf:` (the --model names, POST /v1/models/load, any request's `model`): where the Hub and the
   * caches are (default: the environment's, HF_ENDPOINT, HF_HOME, HF_TOKEN, HF_HUB_OFFLINE, JEPA_CACHE); false refuses them.
   */
  hub?: HubSettings | false;
}

export interface JepaServer {
  /** http://host:port */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Settles when the `models` files have loaded (or one failed: /health then says so). */
  readonly ready: Promise<void>;
  /**
   * Refuses new requests (503), waits for the ones in flight (at most timeoutMs + shutdownGraceMs,
   * then drops the rest with 503), stops listening and disposes the models. Idempotent.
   */
  close(): Promise<void>;
}

function positive(name: string, v: number | undefined, fallback: number, min = 1): number {
  const x = v ?? fallback;
  if (!Number.isInteger(x) || x < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return x;
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

/** Waits for the promise or the time, whichever is first; true when the promise won. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function createServer(options: ServerOptions = {}): Promise<JepaServer> {
  const maxBatch = positive('maxBatch', options.maxBatch, 8);
  const maxBodyMb = positive('maxBodyMb', options.maxBodyMb, 64);
  const timeoutMs = positive('timeoutMs', options.timeoutMs, 30_000);
  const graceMs = positive('shutdownGraceMs', options.shutdownGraceMs, 5000, 0);
  const port = positive('port', options.port, 8080, 0);
  if (options.apiKey !== undefined && options.apiKey.length === 0) throw new RangeError('apiKey must not be empty');
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});

  const metrics = new ServerMetrics(maxBatch);
  const engine = await Engine.create({
    models: options.models ?? [],
    modelsDir: options.modelsDir,
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    ...(options.keepAliveById ? { keepAliveById: options.keepAliveById } : {}),
    ...(options.maxModelBytes !== undefined ? { maxModelBytes: options.maxModelBytes } : {}),
    allowPaths: options.allowPaths ?? [],
    threads: options.threads,
    device: options.device,
    maxBatch,
    maxWaitMs: options.maxWaitMs ?? 5,
    maxQueue: options.maxQueue ?? 256,
    timeoutMs,
    listHint: '(GET /v1/models lists them)',
    tempPrefix: 'jepa-server-',
    metrics: engineMetrics(metrics),
    log,
    ...(options.hub !== undefined ? { hub: options.hub } : {}),
  });
  const state: ServerState = {
    engine,
    metrics,
    log,
    maxBodyBytes: maxBodyMb * 2 ** 20,
    apiKey: options.apiKey,
    debug: process.env.JEPA_SERVER_DEBUG === '1',
    web: loadWebPage(options.webDir),
    searchIndex: options.index ?? null,
    draining: false,
    open: new Set(),
  };
  const app = buildApp(state);
  try {
    await app.listen({ host, port });
  } catch (err) {
    await engine.close();
    throw err;
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  const ready = engine.ready.then(() => {
    if (engine.phase === 'failed') throw new Error(engine.loadError ?? 'the models failed to load');
  });
  ready.catch(() => {});

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      state.draining = true;
      const drained = await within(allClosed(state), timeoutMs + graceMs);
      if (!drained) {
        engine.dropAll();
        if (!(await within(allClosed(state), 1000))) app.server.closeAllConnections();
      }
      await app.close();
      await engine.close(graceMs);
    })();
    return closing;
  };

  return { url: `http://${shownHost}:${boundPort}`, host, port: boundPort, ready, close };
}

/** Resolves once no request that got past the door is still open (new ones keep arriving as 503s). */
async function allClosed(state: ServerState): Promise<void> {
  while (state.open.size > 0) {
    await Promise.allSettled([...state.open]);
    await sleep(0);
  }
}
