// What the tools compute, on @jepa/server's own parts: its model registry (one Model per file, with
// its encoder, head, predictor and world-model contexts), its admission and compute lane, its
// batcher, its item loader (the CLI's ModelInput path) and its path policy. Each operation is the
// matching HTTP route's computation, so a tool answers with the bits /v1/embeddings, /v1/classify,
// /v1/predict and /v1/worldmodel/* give for the same input.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPredictorInputSize, cosine, predictorTokens, type EncodeOutput } from '@jepa/graph';
import {
  Admission,
  ApiError,
  Batcher,
  ComputeLane,
  Dropped,
  type EncodedItem,
  ItemLoader,
  type ModelCard,
  ModelRegistry,
  type ModelSlot,
  type ParsedItem,
  type PathPolicy,
  RequestScope,
  ServerMetrics,
  badField,
  computeOnItems,
  encodeItems,
  encodePlanned,
  modelFiles,
  parseIds,
  planItems,
  rejectOnDrop,
  type PlannedEncoded,
  type WindowPlace,
} from '@jepa/server';
import { planCem, type WorldModel } from '@jepa/worldmodel';
import { Roots, asRootError } from './roots.js';

export interface EngineOptions {
  /** Model files; each is known by its file name without `.gguf`. */
  models?: readonly string[];
  /** Every `.gguf` in this folder too. */
  modelsDir?: string | undefined;
  /** Folders whose files a path argument may name, until the client sends roots. */
  roots?: readonly string[];
  threads?: number | undefined;
  device?: string | undefined;
  /** Still images per encoder graph (concurrent calls share graphs), default 8. */
  maxBatch?: number;
  /** Largest decoded base64 / data: media, bytes (default 64 MiB). */
  maxMediaBytes?: number;
  /** A call not done within this is refused (default 120 000 ms). */
  timeoutMs?: number;
  /** Items admitted at once (default 256). */
  maxQueue?: number;
  /** Where loading and internal errors are reported (default: nowhere; never stdout). */
  log?: (line: string) => void;
}

export type Pool = 'mean' | 'cls' | 'lewm';

export interface ModelInfo extends ModelCard {
  /** The tools this model serves. */
  tools: string[];
}

export const DEFAULT_MAX_MEDIA_BYTES = 64 * 2 ** 20;

/** The warnings of a sampled video's answer: there only when the decode ended early. */
export type Warnings = { warnings?: string[] };

export class Engine {
  readonly registry: ModelRegistry;
  readonly roots: Roots;
  readonly maxMediaBytes: number;
  readonly timeoutMs: number;
  readonly ready: Promise<void>;
  readonly #lane = new ComputeLane();
  readonly #metrics: ServerMetrics;
  readonly #admission: Admission;
  readonly #tmp: string;
  readonly #log: (line: string) => void;
  #loader: ItemLoader | null = null;
  #loaderPolicy: PathPolicy | null = null;
  #loadError: string | null = null;
  #closed = false;

  private constructor(options: EngineOptions, files: { id: string; path: string }[], roots: Roots, tmp: string) {
    const maxBatch = options.maxBatch ?? 8;
    this.registry = new ModelRegistry(files);
    this.roots = roots;
    this.maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.#metrics = new ServerMetrics(maxBatch);
    this.#admission = new Admission(options.maxQueue ?? 256, this.#metrics, () => this.#lane.secondsPerItem);
    this.#tmp = tmp;
    this.#log = options.log ?? (() => {});
    const lane = this.#lane;
    const metrics = this.#metrics;
    this.ready = this.registry
      .load(
        {
          ...(options.threads ? { threads: options.threads } : {}),
          ...(options.device ? { device: options.device } : {}),
          maxBatch,
          batcher: (encoder) => new Batcher(encoder, lane, metrics, { maxBatch, maxWaitMs: 2 }),
        },
        (id, seconds) => {
          const s = this.registry.get(id).spec;
          this.#log(`model: ${id}: ${s.name} (${s.family}) loaded in ${seconds.toFixed(2)} s`);
        },
      )
      .catch((err: unknown) => {
        this.#loadError = err instanceof Error ? err.message : String(err);
        this.#log(`cannot load the models: ${this.#loadError}`);
      });
  }

  /** Checks the options and the roots, and starts loading the models (`ready` settles when done). */
  static async create(options: EngineOptions = {}): Promise<Engine> {
    const models = options.models ?? [];
    // no model at all is allowed here: the tools list, and list_models answers with an empty list
    const files = models.length === 0 && options.modelsDir === undefined ? [] : modelFiles(models, options.modelsDir);
    const roots = await Roots.create(options.roots ?? []);
    const tmp = await mkdtemp(join(tmpdir(), 'jepa-mcp-'));
    return new Engine(options, files, roots, tmp);
  }

  /** The loaded models, or the load failure as a tool error. */
  async #slots(): Promise<void> {
    await this.ready;
    if (this.#closed) throw new ApiError(503, 'server_error', 'shutting_down', 'the server is shutting down');
    if (this.#loadError !== null) throw new ApiError(503, 'server_error', 'load_failed', `the models failed to load: ${this.#loadError}`);
  }

  async #slot(model: string | undefined): Promise<ModelSlot> {
    await this.#slots();
    if (model === undefined && this.registry.size === 0)
      throw badField('model', 'no models are loaded: start jepa mcp with --model FILE or --models-dir DIR', 'no_models');
    if (model === undefined && this.registry.size > 1)
      throw badField('model', `required: ${this.registry.size} models are loaded (list_models names them)`, 'missing_field');
    return this.registry.get(model);
  }

  #loaderNow(): ItemLoader {
    const policy = this.roots.policy;
    if (this.#loader === null || this.#loaderPolicy !== policy) {
      this.#loader = new ItemLoader(policy, this.#tmp, Math.max(1, Math.ceil(this.timeoutMs / 1000)));
      this.#loaderPolicy = policy;
    }
    return this.#loader;
  }

  async models(): Promise<ModelInfo[]> {
    await this.#slots();
    return this.registry.cards().map((card) => {
      const tools = ['embed_image', 'embed_video', 'compare'];
      if (card.endpoints.includes('/v1/classify')) tools.push('classify_video');
      if (card.endpoints.includes('/v1/predict')) tools.push('predict_latents');
      if (card.endpoints.includes('/v1/worldmodel/plan')) tools.push('plan');
      return { ...card, tools };
    });
  }

  /**
   * A call's work holding its items' places in the queue, under the deadline, and dropped (its queued
   * items leave the batcher) when the client cancels it.
   */
  async #scoped<T>(items: number, signal: AbortSignal | undefined, work: (scope: RequestScope) => Promise<T>): Promise<T> {
    const scope = new RequestScope(this.#admission.reserve(items));
    const timer = setTimeout(() => scope.drop('deadline'), this.timeoutMs);
    const onAbort = () => scope.drop('disconnect');
    signal?.addEventListener('abort', onAbort, { once: true });
    const running = work(scope);
    running.catch(() => {});
    try {
      return await Promise.race([running, rejectOnDrop(scope.signal)]);
    } catch (err) {
      const reason = scope.dropped;
      if (reason === 'deadline')
        throw new ApiError(504, 'server_error', 'timeout', `the call was not done within ${this.timeoutMs} ms (--timeout-ms)`);
      if (reason === 'disconnect') throw new ApiError(499, 'server_error', 'cancelled', 'the client cancelled the call');
      if (err instanceof Dropped) throw new ApiError(503, 'server_error', 'dropped', `the call was dropped (${err.reason})`);
      throw asRootError(err);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      scope.ticket.releaseAll();
    }
  }

  /** Every item through the model's batcher (the server's encodeItems), in order. */
  async #encode(slot: ModelSlot, items: readonly ParsedItem[], scope: RequestScope, batcher = slot.batcher) {
    return encodeItems({ loader: this.#loaderNow(), metrics: this.#metrics }, slot, items, scope, batcher);
  }

  /** As /v1/embeddings's pool: the default is CLS where the model has one, else the mean of the patch tokens. */
  #pool(slot: ModelSlot, pool: Pool | undefined): Pool {
    const spec = slot.spec;
    const p = pool ?? (spec.enc.nCls > 0 ? 'cls' : 'mean');
    if (p === 'cls' && spec.enc.nCls === 0) throw badField('pool', `${spec.family} models have no CLS token; use "mean"`);
    if (p === 'lewm' && spec.pred?.kind !== 'action') throw badField('pool', `"lewm" needs a LeWorldModel; this is ${spec.family}`);
    return p;
  }

  /** As /v1/embeddings: mean or CLS rows, or the LeWM states of the call's items projected together. */
  async #pooled(slot: ModelSlot, outs: readonly EncodeOutput[], pool: Pool): Promise<Float32Array[]> {
    if (pool !== 'lewm') return outs.map((o) => o.pool(pool));
    const D = slot.spec.enc.embedDim;
    const cls = new Float32Array(outs.length * D);
    for (const [i, o] of outs.entries()) cls.set(o.pool('cls'), i * D);
    const world = slot.world();
    const states = await computeOnItems('input', () => this.#lane.run(() => world.project(cls, outs.length)));
    const Dp = world.embedDim;
    return outs.map((_, i) => states.slice(i * Dp, (i + 1) * Dp));
  }

  async embed(
    args: { model?: string | undefined; item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; dims: number; embedding: number[] }> {
    const slot = await this.#slot(args.model);
    const pool = this.#pool(slot, args.pool);
    return this.#scoped(1, signal, async (scope) => {
      const outs = (await this.#encode(slot, [args.item], scope)).map((e) => e.out);
      const [v] = (await this.#pooled(slot, outs, pool)) as [Float32Array];
      if (args.normalize) l2Normalize(v);
      return { model: slot.id, pool, dims: v.length, embedding: Array.from(v) };
    });
  }

  /** As /v1/embeddings on one video item with sampling: one pooled vector per window, in order. */
  async embedWindows(
    args: { model?: string | undefined; item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; dims: number; windows: (WindowPlace & { embedding: number[] })[] } & Warnings> {
    const slot = await this.#slot(args.model);
    const pool = this.#pool(slot, args.pool);
    return this.#windows(slot, args.item, signal, async (encoded, warnings) => {
      const vectors = await this.#pooled(
        slot,
        encoded.map((e) => e.out),
        pool,
      );
      if (args.normalize) for (const v of vectors) l2Normalize(v);
      const dims = vectors[0]?.length ?? (pool === 'lewm' ? slot.world().embedDim : slot.spec.enc.embedDim);
      const windows = encoded.map((e, i) => ({ ...e.place!, embedding: Array.from(vectors[i]!) }));
      return { model: slot.id, pool, dims, windows, ...withWarnings(warnings) };
    });
  }

  /**
   * A sampled video's windows (planned first, counted against the queue), encoded through the batcher
   * as the server's routes encode them; its decode stops and its temp file goes however the call ends.
   */
  async #windows<T>(
    slot: ModelSlot,
    item: ParsedItem,
    signal: AbortSignal | undefined,
    answer: (encoded: PlannedEncoded[], warnings: string[]) => Promise<T>,
  ): Promise<T> {
    const loader = this.#loaderNow();
    let plan: Awaited<ReturnType<typeof planItems>>;
    try {
      plan = await planItems(loader, slot, [item], this.#admission.capacity);
    } catch (err) {
      throw asRootError(err);
    }
    try {
      return await this.#scoped(plan.count, signal, async (scope) => {
        const { encoded, warnings } = await encodePlanned({ loader, metrics: this.#metrics }, slot, plan, scope);
        return answer(encoded, warnings);
      });
    } finally {
      await plan.close();
    }
  }

  /** Cosine similarity of each item's pooled vector to the query's (float64 sums), and the items ranked by it. */
  async compare(
    args: { model?: string | undefined; query: ParsedItem; items: readonly ParsedItem[]; pool?: Pool | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; similarities: number[]; ranking: { index: number; similarity: number }[] }> {
    const slot = await this.#slot(args.model);
    const pool = this.#pool(slot, args.pool);
    const all = [args.query, ...args.items];
    return this.#scoped(all.length, signal, async (scope) => {
      const outs = (await this.#encode(slot, all, scope)).map((e) => e.out);
      const [q, ...vs] = await this.#pooled(slot, outs, pool);
      const similarities = vs.map((v) => cosine(q!, v));
      const ranking = similarities
        .map((similarity, index) => ({ index, similarity }))
        .sort((a, b) => b.similarity - a.similarity || a.index - b.index);
      return { model: slot.id, pool, similarities, ranking };
    });
  }

  /** The model's head and the number of classes to return (top_k checked against the head). */
  async #classifier(model: string | undefined, topK: number | undefined) {
    const slot = await this.#slot(model);
    const head = slot.head();
    const classes = slot.spec.head!.nClasses;
    const k = topK ?? Math.min(5, classes);
    if (k > classes) throw badField('top_k', `at most ${classes} (the head's classes)`);
    return { slot, head, k };
  }

  /** As /v1/classify on one item. */
  async classify(
    args: { model?: string | undefined; item: ParsedItem; topK?: number | undefined; logits?: boolean | undefined },
    signal?: AbortSignal,
  ) {
    const { slot, head, k } = await this.#classifier(args.model, args.topK);
    return this.#scoped(1, signal, async (scope) => {
      const [{ out }] = (await this.#encode(slot, [args.item], scope)) as [EncodedItem];
      const r = (await computeOnItems('input', () => this.#lane.run(() => head.classify(out, k))))[0]!;
      return {
        model: slot.id,
        top: r.top.map((c) => ({ label: c.label, index: c.index, prob: c.prob, logit: c.logit })),
        ...(args.logits ? { logits: Array.from(r.logits) } : {}),
      };
    });
  }

  /** As /v1/classify on one video item with sampling: the top-k labels of each window, in order. */
  async classifyWindows(
    args: { model?: string | undefined; item: ParsedItem; topK?: number | undefined; logits?: boolean | undefined },
    signal?: AbortSignal,
  ) {
    const { slot, head, k } = await this.#classifier(args.model, args.topK);
    return this.#windows(slot, args.item, signal, async (encoded, warnings) => {
      const results = await computeOnItems('input', () =>
        this.#lane.run(async () => {
          const all = [];
          for (const e of encoded) all.push((await head.classify(e.out, k))[0]!);
          return all;
        }),
      );
      const windows = encoded.map((e, i) => ({
        ...e.place!,
        top: results[i]!.top.map((c) => ({ label: c.label, index: c.index, prob: c.prob, logit: c.logit })),
        ...(args.logits ? { logits: Array.from(results[i]!.logits) } : {}),
      }));
      return { model: slot.id, windows, ...withWarnings(warnings) };
    });
  }

  /**
   * As /v1/predict (the masked predictor from the context tokens to the targets), then each predicted
   * target token's cosine to the encoder's own token at that id.
   */
  async predictLatents(
    args: { model?: string | undefined; item: ParsedItem; context: unknown; target: unknown; maskIndex?: number | undefined },
    signal?: AbortSignal,
  ) {
    const slot = await this.#slot(args.model);
    const predictor = slot.predictor();
    const contextIds = parseIds(args.context, 'context');
    const targetIds = parseIds(args.target, 'target');
    return this.#scoped(1, signal, async (scope) => {
      // V-JEPA 2.1 g/G: the hierarchy levels, which the predictions (one per level) are compared with too
      const [{ out, shape }] = (await this.#encode(slot, [args.item], scope, slot.predictorBatcher())) as [EncodedItem];
      const oneFrame = shape.length === 3 || shape[1] === 1;
      const result = await computeOnItems('input', () =>
        this.#lane.run(() => {
          checkPredictorInputSize(slot.spec, shape);
          return predictor.predict({
            ...predictorTokens(out),
            contextIds,
            targetIds,
            ...(args.maskIndex !== undefined ? { maskIndex: args.maskIndex } : {}),
            modality: oneFrame ? 'image' : 'video',
          });
        }),
      );
      const { tokens, dim } = predictorTokens(out);
      if (result.outDim !== dim)
        throw badField(
          'model',
          `the predictor's tokens are ${result.outDim} wide and the encoder's ${dim}: they cannot be compared`,
          'unsupported_model',
        );
      const cosines = targetIds.map((id, r) => cosine(result.targets.subarray(r * dim, (r + 1) * dim), tokens.subarray(id * dim, (id + 1) * dim)));
      return {
        model: slot.id,
        context_tokens: contextIds.length,
        target_ids: targetIds,
        dims: dim,
        cosines,
        mean_cosine: cosines.reduce((a, b) => a + b, 0) / cosines.length,
      };
    });
  }

  /**
   * As /v1/worldmodel/plan: CEM from the start frames toward the goal, every iteration's batched
   * rollout on the compute lane; then the cost of the planned sequence itself (its rollout's last
   * state against the goal's, in the model's action units).
   */
  async plan(
    args: {
      model?: string | undefined;
      start: readonly ParsedItem[];
      goal: ParsedItem;
      horizon?: number | undefined;
      samples?: number | undefined;
      iterations?: number | undefined;
      topK?: number | undefined;
      seed?: number | undefined;
      actionMean?: number[] | undefined;
      actionStd?: number[] | undefined;
    },
    signal?: AbortSignal,
  ) {
    const slot = await this.#slot(args.model);
    const wm = slot.world();
    const stats = actionStats(args.actionMean, args.actionStd, wm.actionDim);
    const frames = args.start.slice(-wm.history);
    const H = frames.length;
    const horizon = Math.max(args.horizon ?? 5, H);
    const samples = args.samples ?? 300;
    const iterations = args.iterations ?? 30;
    const topk = args.topK ?? Math.min(30, samples);
    if (topk > samples) throw badField('top_k', `at most samples (${samples})`);
    const seed = args.seed ?? 0;
    const items = [...frames, args.goal];
    return this.#scoped(items.length, signal, async (scope) => {
      const { initial, target } = await this.#worldInputs(slot, wm, H, items, scope);
      const rollCost = async (candidates: Float32Array, count: number) => {
        if (scope.dropped) throw new Dropped(scope.dropped);
        return this.#lane.run(async () => {
          const rolled = await wm.rollout({ data: initial, candidates: 1, steps: H }, { data: candidates, candidates: count, steps: horizon });
          return wm.cost({ data: rolled, candidates: count, steps: horizon + 1 }, target);
        });
      };
      const result = await computeOnItems('samples', () => planCem(rollCost, { horizon, actionDim: wm.actionDim, samples, iterations, topk, seed }));
      const [cost] = await computeOnItems('samples', () => rollCost(result.mean, 1));
      const actions = stats ? denormalizeActions(result.mean, stats) : result.mean;
      const A = wm.actionDim;
      return {
        model: slot.id,
        history: H,
        horizon,
        action_dim: A,
        space: stats ? ('raw' as const) : ('model' as const),
        actions: Array.from({ length: horizon }, (_, t) => Array.from(actions.subarray(t * A, (t + 1) * A))),
        cost: cost!,
        best_costs: result.bestCosts,
      };
    });
  }

  /** History frames -> state embeddings [H, Dp] (projected together), and the goal's [Dp]. */
  async #worldInputs(slot: ModelSlot, wm: WorldModel, H: number, items: readonly ParsedItem[], scope: RequestScope) {
    const outs = (await this.#encode(slot, items, scope)).map((e) => e.out);
    const D = slot.spec.enc.embedDim;
    const cls = new Float32Array(H * D);
    for (let i = 0; i < H; i++) cls.set(outs[i]!.pool('cls'), i * D);
    const initial = await computeOnItems('start', () => this.#lane.run(() => wm.project(cls, H)));
    const target = await computeOnItems('goal', () => this.#lane.run(() => wm.project(outs[H]!.pool('cls'), 1)));
    return { initial, target };
  }

  /** Stops taking calls, waits for the compute in progress, disposes the models. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.ready;
    await this.#lane.idle();
    this.registry.dispose();
    await rm(this.#tmp, { recursive: true, force: true });
  }
}

function withWarnings(warnings: string[]): Warnings {
  return warnings.length > 0 ? { warnings } : {};
}

function l2Normalize(values: Float32Array): void {
  let s = 0;
  for (const v of values) s += v * v;
  const n = Math.sqrt(s);
  if (n > 0) for (let d = 0; d < values.length; d++) values[d] = values[d]! / n;
}

interface ActionStats {
  mean: number[];
  std: number[];
}

function actionStats(mean: number[] | undefined, std: number[] | undefined, A: number): ActionStats | null {
  if ((mean === undefined) !== (std === undefined))
    throw badField(mean ? 'action_std' : 'action_mean', 'give action_mean and action_std together', 'missing_field');
  if (!mean || !std) return null;
  for (const [name, v] of [
    ['action_mean', mean],
    ['action_std', std],
  ] as const)
    if (v.length !== A) throw badField(name, `must hold ${A} numbers (the model's action width), got ${v.length}`);
  std.forEach((s, i) => {
    if (s === 0) throw badField(`action_std[${i}]`, 'must not be 0');
  });
  return { mean, std };
}

function denormalizeActions(actions: Float32Array, s: ActionStats): Float32Array {
  const A = s.mean.length;
  return Float32Array.from(actions, (v, i) => v * s.std[i % A]! + s.mean[i % A]!);
}
