// createServer: checks the options, listens (answering 503 while the models load), loads them, and
// closes in order: refuse new requests, let in-flight ones finish, stop listening, dispose the models.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerMetrics } from './metrics.js';
import { PathPolicy } from './paths.js';
import { ModelRegistry, modelFiles } from './server-context.js';
import { buildApp, type ServerState } from './server-http.js';
import { Admission, Batcher, ComputeLane } from './server-queue.js';
import { ItemLoader } from './server-task.js';
import { loadWebPage } from './web-page.js';

export interface ServerOptions {
  /** Model files to serve; each is known by its file name without `.gguf`. */
  models?: readonly string[];
  /** A folder whose every `.gguf` is served too. */
  modelsDir?: string;
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
  /** A request not answered within this gets 504 (default 30 000 ms). */
  timeoutMs?: number;
  /** When set, every route but /health wants `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** Folders whose files `{path}` items may name (default none: path items are refused). */
  allowPaths?: readonly string[];
  /** CPU threads per model context (default: the machine's parallelism). */
  threads?: number;
  /** `cpu`, `cuda`, `cuda:N` (default JEPA_DEVICE, else the CPU). */
  device?: string;
  /** After the drain of timeoutMs, how long close() gives what is left before dropping it (default 5000 ms). */
  shutdownGraceMs?: number;
  /** The folder of the page served at / (default: dist/web of this package; the page is left out where it is not built). */
  webDir?: string;
  /** Where the server reports internal errors (default: nowhere). */
  log?: (line: string) => void;
}

export interface JepaServer {
  /** http://host:port */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Settles when every model has loaded (or one failed: /health then says so). */
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
  const maxWaitMs = positive('maxWaitMs', options.maxWaitMs, 5, 0);
  const maxQueue = positive('maxQueue', options.maxQueue, 256);
  const maxBodyMb = positive('maxBodyMb', options.maxBodyMb, 64);
  const timeoutMs = positive('timeoutMs', options.timeoutMs, 30_000);
  const graceMs = positive('shutdownGraceMs', options.shutdownGraceMs, 5000, 0);
  const port = positive('port', options.port, 8080, 0);
  if (options.threads !== undefined) positive('threads', options.threads, 1);
  if (options.apiKey !== undefined && options.apiKey.length === 0) throw new RangeError('apiKey must not be empty');
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});

  const files = modelFiles(options.models ?? [], options.modelsDir);
  const paths = await PathPolicy.create(options.allowPaths ?? []);
  const tmp = await mkdtemp(join(tmpdir(), 'jepa-server-'));
  const metrics = new ServerMetrics(maxBatch);
  const lane = new ComputeLane();
  const registry = new ModelRegistry(files);
  const state: ServerState = {
    registry,
    loader: new ItemLoader(paths, tmp, Math.max(1, Math.ceil(timeoutMs / 1000))),
    admission: new Admission(maxQueue, metrics, () => lane.secondsPerItem),
    lane,
    metrics,
    maxQueue,
    timeoutMs,
    log,
    maxBodyBytes: maxBodyMb * 2 ** 20,
    apiKey: options.apiKey,
    debug: process.env.JEPA_SERVER_DEBUG === '1',
    web: loadWebPage(options.webDir),
    phase: 'loading',
    loadError: null,
    active: new Set(),
    open: new Set(),
  };
  const app = buildApp(state);
  try {
    await app.listen({ host, port });
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  const ready = registry
    .load(
      {
        ...(options.threads ? { threads: options.threads } : {}),
        ...(options.device ? { device: options.device } : {}),
        maxBatch,
        batcher: (encoder) => new Batcher(encoder, lane, metrics, { maxBatch, maxWaitMs }),
      },
      (id, seconds) => metrics.modelLoadSeconds.set({ model: id }, seconds),
    )
    .then(
      () => {
        if (state.phase === 'loading') state.phase = 'ready';
      },
      (err: unknown) => {
        if (state.phase === 'loading') state.phase = 'failed';
        state.loadError = err instanceof Error ? err.message : String(err);
        throw err;
      },
    );
  ready.catch(() => {});

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      state.phase = 'draining';
      const drained = await within(allClosed(state), timeoutMs + graceMs);
      if (!drained) {
        for (const scope of state.active) scope.drop('shutdown');
        if (!(await within(allClosed(state), 1000))) app.server.closeAllConnections();
      }
      await app.close();
      await ready.catch(() => {});
      await within(lane.idle(), graceMs);
      registry.dispose();
      await rm(tmp, { recursive: true, force: true });
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
