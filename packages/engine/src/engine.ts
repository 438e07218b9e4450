// The engine every front end calls: its models, the queue that admits requests, the compute lane,
// the item loader, and one method per operation. A front end parses its own transport (HTTP bodies,
// MCP arguments, CLI flags) into the items and options below, passes the model id to the operation and
// shapes the answers it gets back; it never holds a model itself (what a model serves is on its card).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RuntimeOptions, runtimeFromEnv } from '@jepa/graph';
import type { HubSettings } from '@jepa/hub';
import type { IndexModel } from '@jepa/search';
import { EngineError, unavailable } from './errors.js';
import { type HubModelCard, HubModels } from './hub/hub-models.js';
import { ItemLoader } from './items/item-loader.js';
import { PathPolicy } from './items/path-policy.js';
import { Admission } from './queue/admission.js';
import { Batcher } from './queue/batcher.js';
import { TextBatcher } from './queue/text-batcher.js';
import { ComputeLane } from './queue/compute-lane.js';
import { Dropped, rejectOnDrop } from './queue/dropped.js';
import { type EngineMetrics, SILENT_METRICS } from './queue/engine-metrics.js';
import { RequestScope } from './queue/request-scope.js';
import { type ClassifyRequest, type ClassifyResult, classify } from './operations/classify.js';
import { type EmbedRequest, type EmbedResult, embed } from './operations/embed.js';
import { zeroShot } from './operations/zero-shot.js';
import type { CallOptions, EngineCore, ModelHeader } from './operations/engine-core.js';
import { type FeaturesRequest, type FeaturesResult, features } from './operations/features.js';
import {
  type IndexAddRequest,
  type IndexAddResult,
  type IndexSearchRequest,
  type IndexSearchResult,
  addToIndex,
  indexIdentity,
  searchIndex,
} from './operations/index-search.js';
import type { Pool } from '@jepa/session';
import { type PredictRequest, type PredictResult, predict } from './operations/predict.js';
import { type PlanRequest, type PlanResult, type RolloutRequest, type RolloutResult, plan, rollout } from './operations/world.js';
import { ModelRegistry, modelFiles } from './registry/model-registry.js';
import type { ModelCard, ModelSlot, ModelState } from './registry/model-slot.js';
import { formatSize } from './registry/quantities.js';

export interface EngineOptions {
  /**
   * Model files, each known by its file name without `.gguf`, and `hf:ORG/NAME[@REVISION][:TYPE]` names,
   * each known by its reference (pulled and converted first). Loaded at start-up (`ready` waits for them).
   */
  models?: readonly string[];
  /** Every `.gguf` in this folder too, each loaded on its first use. */
  modelsDir?: string | undefined;
  /** Idle time after which a model unloads, in ms (default Infinity: never; 0: right after each use). */
  keepAliveMs?: number;
  /** Per-model keep-alive in ms, by model id, over keepAliveMs. */
  keepAliveById?: ReadonlyMap<string, number>;
  /** The most bytes the loaded models' weights may hold together; a load past it evicts idle models (default: no cap). */
  maxModelBytes?: number;
  /** Start with no model at all (MCP lists its tools before any model is given); default: refused. */
  allowNoModels?: boolean;
  /** Folders whose files a `{path}` item may name (default none: path items are refused). */
  allowPaths?: readonly string[];
  /** CPU threads per model context (default: the CPUs the process may use, a CFS quota rounded up). */
  threads?: number | undefined;
  /** `cpu`, `cuda`, `cuda:N` (default JEPA_DEVICE, else the CPU). */
  device?: string | undefined;
  /** The run-time switches every model loads under (default: the environment's, read once here). */
  runtime?: RuntimeOptions;
  /** Still images per encoder graph (default 8). */
  maxBatch?: number;
  /** How long a graph waits for more stills once the first has arrived (default 5 ms). */
  maxWaitMs?: number;
  /** Items admitted at once (decoding, queued or running); beyond it a request is refused as busy (default 256). */
  maxQueue?: number;
  /** A request not done within this is refused, its graph stopped between two nodes (default 30 000 ms). */
  timeoutMs?: number;
  /** Where a refusal that names a model says the models are listed, e.g. `(GET /v1/models lists them)`. */
  listHint?: string;
  metrics?: EngineMetrics;
  /** The name of the engine's temp folder (base64 videos for ffmpeg) starts with this (default `jepa-engine-`). */
  tempPrefix?: string;
  /** Where loading and internal errors are reported (default: nowhere). */
  log?: (line: string) => void;
  /**
   * Models named `hf:` (@jepa/hub): where the Hub and the caches are (default: the environment's,
   * HF_ENDPOINT, HF_HOME, HF_TOKEN, HF_HUB_OFFLINE, JEPA_CACHE, read at the first such name); false refuses such names.
   */
  hub?: HubSettings | false;
}

export type EnginePhase = 'loading' | 'ready' | 'failed' | 'closed';

/** How many models are served, and which are in memory or loading now (`hf:` names being pulled among the loading). */
export interface ModelResidencies {
  models: number;
  loaded: string[];
  loading: string[];
}

function positive(name: string, v: number | undefined, fallback: number, min = 1): number {
  const x = v ?? fallback;
  if (!Number.isInteger(x) || x < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return x;
}

export class Engine {
  readonly lane = new ComputeLane();
  readonly admission: Admission;
  readonly metrics: EngineMetrics;
  readonly maxBatch: number;
  readonly maxQueue: number;
  readonly timeoutMs: number;
  /** Settles when the preloaded models (`models`) have loaded, or one failed (phase and loadError then say so); never rejects. */
  readonly ready: Promise<void>;
  #phase: EnginePhase = 'loading';
  #loadError: string | null = null;
  #loader: ItemLoader;
  readonly #registry: ModelRegistry;
  readonly #hub: HubModels | null;
  /** What the operations see of the engine (engine-core.ts): the models only through it. */
  readonly #core: EngineCore;
  readonly #tmp: string;
  readonly #active = new Set<RequestScope>();
  #closing: Promise<void> | null = null;

  private constructor(
    options: EngineOptions,
    files: { id: string; path: string }[],
    named: readonly string[],
    preloaded: ReadonlySet<string>,
    paths: PathPolicy,
    tmp: string,
  ) {
    this.maxBatch = positive('maxBatch', options.maxBatch, 8);
    const maxWaitMs = positive('maxWaitMs', options.maxWaitMs, 5, 0);
    this.maxQueue = positive('maxQueue', options.maxQueue, 256);
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, 30_000);
    this.metrics = options.metrics ?? SILENT_METRICS;
    const log = options.log ?? (() => {});
    const maxBatch = this.maxBatch;
    const keepAliveMs = options.keepAliveMs ?? Number.POSITIVE_INFINITY;
    if (!(keepAliveMs >= 0)) throw new RangeError(`keepAliveMs must be >= 0 (Infinity: never), got ${String(options.keepAliveMs)}`);
    const maxBytes = options.maxModelBytes ?? Number.POSITIVE_INFINITY;
    if (!(maxBytes > 0)) throw new RangeError(`maxModelBytes must be > 0, got ${String(options.maxModelBytes)}`);
    this.#registry = new ModelRegistry(files, {
      ...(options.threads ? { threads: options.threads } : {}),
      ...(options.device ? { device: options.device } : {}),
      runtime: options.runtime ?? runtimeFromEnv(),
      notice: log,
      maxBatch,
      batcher: (encoder) => new Batcher(encoder, this.lane, this.metrics, { maxBatch, maxWaitMs }),
      textBatcher: (embed) => new TextBatcher(embed, this.lane, { maxBatch, maxWaitMs }),
      keepAliveMs,
      // an hf: name's keep-alive under the id it is served as
      ...(options.keepAliveById
        ? { keepAliveById: new Map([...options.keepAliveById].map(([id, ms]) => [HubModels.isName(id) ? HubModels.idOf(id) : id, ms])) }
        : {}),
      pending: named,
      maxBytes,
      listHint: options.listHint ?? '',
      onLoaded: (id, seconds, bytes) => {
        this.metrics.modelLoaded(id, seconds, bytes);
        const s = this.#registry.entry(id).spec;
        log(`model: ${id}: ${s.name} (${s.family}) loaded in ${seconds.toFixed(2)} s, ${formatSize(bytes)}`);
      },
      onUnloaded: (id, reason) => {
        this.metrics.modelUnloaded(id, reason);
        if (reason !== 'shutdown')
          log(
            `model: ${id}: unloaded (${reason === 'idle' ? 'idle past its keep-alive' : reason === 'evicted' ? 'evicted for memory' : 'on request'})`,
          );
      },
    });
    this.#hub = options.hub === false ? null : new HubModels(this.#registry, options.hub, log);
    this.admission = new Admission(this.maxQueue, this.metrics, () => this.lane.secondsPerItem);
    this.#tmp = tmp;
    this.#loader = new ItemLoader(paths, tmp, this.#videoTimeoutSeconds());
    const engine = this;
    this.#core = {
      lane: this.lane,
      metrics: this.metrics,
      maxQueue: this.maxQueue,
      get loader() {
        return engine.#loader;
      },
      header: (id) => this.#header(id),
      withModel: (id, work) => this.#withModel(id, work),
      scoped: (items, call, work) => this.scoped(items, call, work),
    };
    const preload = files.filter((f) => preloaded.has(f.id)).map((f) => f.id);
    this.#registry.checkHeaders(preloaded);
    const [hub, registry] = [this.#hub, this.#registry];
    this.ready = (async () => {
      // the named models are pulled (or found in the caches) first, then every preloaded model loads in order
      for (const name of named) await hub!.serve(name);
      await registry.preload([...preload, ...named]);
    })().then(
      () => {
        if (this.#phase === 'loading') this.#phase = 'ready';
      },
      (err: unknown) => {
        if (this.#phase === 'loading') this.#phase = 'failed';
        this.#loadError = err instanceof Error ? err.message : String(err);
        log(`cannot load the models: ${this.#loadError}`);
      },
    );
  }

  /**
   * Checks the options and the model files, and starts loading the models (`ready` settles when they
   * are in). Calls made before then wait for the load.
   */
  static async create(options: EngineOptions = {}): Promise<Engine> {
    if (options.threads !== undefined) positive('threads', options.threads, 1);
    const all = options.models ?? [];
    const named = [...new Set(all.filter(HubModels.isName).map(HubModels.idOf))];
    if (named.length > 0 && options.hub === false) throw new Error(`${named[0]}: models named hf: are turned off here`);
    const models = all.filter((m) => !HubModels.isName(m));
    const none = models.length === 0 && options.modelsDir === undefined;
    const files = none && (options.allowNoModels || named.length > 0) ? [] : modelFiles(models, options.modelsDir);
    const preloaded = new Set(files.slice(0, models.length).map((f) => f.id));
    const paths = await PathPolicy.create(options.allowPaths ?? []);
    const tmp = await mkdtemp(join(tmpdir(), options.tempPrefix ?? 'jepa-engine-'));
    try {
      return new Engine(options, files, named, preloaded, paths, tmp);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }

  get phase(): EnginePhase {
    return this.#phase;
  }

  get loadError(): string | null {
    return this.#loadError;
  }

  /** The folders `{path}` items may name from now on (MCP's roots change while it runs). */
  setAllowedPaths(paths: PathPolicy): void {
    this.#loader = new ItemLoader(paths, this.#tmp, this.#videoTimeoutSeconds());
  }

  #videoTimeoutSeconds(): number {
    return Math.max(1, Math.ceil(this.timeoutMs / 1000));
  }

  /** The real path of a file that a `{path}` item may name (`field` names it in a refusal: forbidden, not found). */
  checkPath(field: string, path: string): Promise<string> {
    return this.#loader.paths.check(field, path);
  }

  /** The named model's header (the only one when `id` is undefined); nothing loads. Refused while failed or closed. */
  async #header(id: unknown): Promise<ModelHeader> {
    await this.ready;
    this.#checkOpen();
    const { id: known, path, spec } = this.#registry.entry(await this.#served(id));
    return { id: known, path, spec };
  }

  /**
   * Runs `work` on the named model, loaded and held: one not in memory loads now (every caller waits for
   * that one load), and it is neither unloaded nor evicted until `work` settles. Refused while failed or closed.
   */
  async #withModel<T>(id: unknown, work: (slot: ModelSlot) => Promise<T>): Promise<T> {
    await this.ready;
    this.#checkOpen();
    return this.#registry.withModel(await this.#served(id), work);
  }

  /**
   * The registry's id for a request's model: an `hf:` name is pulled and converted (or found in the
   * caches) and served from now on, unless `pull` is false; anything else is as given.
   */
  async #served(id: unknown, pull = true): Promise<unknown> {
    if (!HubModels.isName(id)) return id;
    if (!this.#hub) throw new EngineError('hub_off', `${id}: models named hf: are turned off here`, { kind: 'input', param: 'model' });
    if (!pull) return HubModels.idOf(id);
    const served = await this.#hub.serve(id);
    this.#checkOpen();
    return served;
  }

  /** Every model's card (loaded or not), once the preloaded ones are in. */
  async models(): Promise<ModelCard[]> {
    await this.ready;
    this.#checkOpen();
    return this.#registry.cards();
  }

  /**
   * The `hf:` models not served yet: those the Hugging Face cache holds (whether every file the
   * conversion reads is there, and whether jepa's cache holds the GGUF) and those being pulled now,
   * with their progress. Empty where models by name are turned off.
   */
  async hubModels(): Promise<HubModelCard[]> {
    await this.ready;
    this.#checkOpen();
    return this.#hub ? this.#hub.cards() : [];
  }

  /** The named model's card (the only one when `id` is undefined), loaded or not; an `hf:` name not served yet is not pulled. */
  async card(id: unknown): Promise<ModelCard> {
    await this.ready;
    this.#checkOpen();
    return this.#registry.entry(await this.#served(id, false)).card();
  }

  /** The models served, and which are in memory or loading now: answered at once, in every phase. */
  residencies(): ModelResidencies {
    const ids = (state: ModelState) => this.#registry.idsIn(state);
    return { models: this.#registry.size, loaded: ids('loaded'), loading: [...ids('loading'), ...(this.#hub?.pulling ?? [])] };
  }

  /** Loads the named model now (an `hf:` name pulled and converted first; keepAliveMs: its keep-alive from now on); its card. */
  async loadModel(id: unknown, keepAliveMs?: number): Promise<ModelCard> {
    await this.ready;
    this.#checkOpen();
    return this.#registry.load(await this.#served(id), keepAliveMs);
  }

  /** Unloads the named model once its requests in flight have finished; its card. */
  async unloadModel(id: unknown): Promise<ModelCard> {
    await this.ready;
    this.#checkOpen();
    return this.#registry.unload(await this.#served(id, false));
  }

  #checkOpen(): void {
    if (this.#phase === 'closed') throw unavailable('shutting down', 'shutting_down');
    if (this.#phase === 'failed') throw new EngineError('load_failed', `the models failed to load: ${this.#loadError}`, { kind: 'unavailable' });
  }

  /**
   * Runs a request's work holding its items' place in the queue, under its deadline, with the caller's
   * abort and the engine's shutdown dropping whatever of it is still queued.
   */
  async scoped<T>(items: number, call: CallOptions, work: (scope: RequestScope) => Promise<T>): Promise<T> {
    const ms = Math.min(call.timeoutMs ?? this.timeoutMs, this.timeoutMs);
    const scope = new RequestScope(this.admission.reserve(items), performance.now() + ms);
    const timer = setTimeout(() => scope.drop('deadline'), ms);
    const onAbort = () => scope.drop('disconnect');
    if (call.signal?.aborted) onAbort();
    else call.signal?.addEventListener('abort', onAbort, { once: true });
    this.#active.add(scope);
    const running = work(scope);
    running.catch(() => {});
    try {
      return await Promise.race([running, rejectOnDrop(scope.signal)]);
    } catch (err) {
      const reason = scope.dropped;
      if (reason === 'deadline')
        throw new EngineError(
          'timeout',
          `the request was not done within ${ms} ms (its timeout, or the server's --request-timeout); its compute was stopped`,
          { kind: 'timeout' },
        );
      if (reason === 'shutdown') throw unavailable('the server is shutting down', 'shutting_down');
      if (reason === 'disconnect') throw new EngineError('cancelled', 'the client cancelled the request', { kind: 'cancelled' });
      if (err instanceof Dropped) throw unavailable(`the request was dropped (${err.reason})`, 'dropped');
      throw err;
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
      this.#active.delete(scope);
      scope.ticket.releaseAll();
    }
  }

  /** Pooled embeddings of the items (each window of a sampled video). */
  embed(req: EmbedRequest, call: CallOptions = {}): Promise<EmbedResult> {
    return embed(this.#core, req, call);
  }

  /** The PCA map of each item's patch features. */
  features(req: FeaturesRequest, call: CallOptions = {}): Promise<FeaturesResult> {
    return features(this.#core, req, call);
  }

  /** The head's top classes for each item (each window of a sampled video); with labels, zero-shot through the model's text side. */
  classify(req: ClassifyRequest, call: CallOptions = {}): Promise<ClassifyResult> {
    if (req.labels !== undefined) return zeroShot(this.#core, { ...req, labels: req.labels }, call);
    return classify(this.#core, req, call);
  }

  /** The masked predictor's target tokens from an item's context tokens. */
  predict(req: PredictRequest, call: CallOptions = {}): Promise<PredictResult> {
    return predict(this.#core, req, call);
  }

  /** A LeWorldModel rollout of action sequences from history frames. */
  rollout(req: RolloutRequest, call: CallOptions = {}): Promise<RolloutResult> {
    return rollout(this.#core, req, call);
  }

  /** A LeWorldModel CEM plan from history frames toward a goal frame. */
  plan(req: PlanRequest, call: CallOptions = {}): Promise<PlanResult> {
    return plan(this.#core, req, call);
  }

  /** The rows of an index (@jepa/search) nearest a query the model embeds with the index's pooling, or nearest a stored row. */
  search(req: IndexSearchRequest, call: CallOptions = {}): Promise<IndexSearchResult> {
    return searchIndex(this.#core, req, call);
  }

  /** Embeds the new and changed files into an index (@jepa/search), one file per call and per transaction. */
  addToIndex(req: IndexAddRequest, call: CallOptions = {}): Promise<IndexAddResult> {
    return addToIndex(this.#core, req, call);
  }

  /** The identity (@jepa/search's IndexModel) of an index made now for the model, pooled by `pool` (`cls` or `mean`; default the model's). */
  indexIdentity(model: unknown, pool?: Pool): Promise<{ id: string; identity: IndexModel }> {
    return indexIdentity(this.#core, model, pool);
  }

  /** Drops the queued items of every request in progress (a shutdown past its grace). */
  dropAll(): void {
    for (const scope of this.#active) scope.drop('shutdown');
  }

  /** Resolves once the compute queued so far has finished. */
  idle(): Promise<void> {
    return this.lane.idle();
  }

  /**
   * Stops taking calls, waits for the load and (at most `graceMs`) for the compute in progress, then
   * disposes the models and removes the temp folder. Idempotent.
   */
  close(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#closing ??= (async () => {
      await this.ready;
      this.#phase = 'closed';
      await within(this.lane.idle(), graceMs);
      await this.#registry.dispose();
      await rm(this.#tmp, { recursive: true, force: true });
    })();
    return this.#closing;
  }
}

/** Waits for the promise or the time, whichever is first. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  if (!Number.isFinite(ms)) {
    await p;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  try {
    await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
