// What the tools compute: the engine's operations (the ones /v1/embeddings, /v1/classify,
// /v1/predict and /v1/worldmodel/plan call), shaped as the tools answer, with the roots as the
// folders a path may name. A tool gives the bits the matching HTTP route gives for the same input.
import { cosine } from '@jepa/graph';
import {
  type CallOptions,
  Engine,
  type ImageSize,
  type ModelCard,
  type ParsedItem,
  type Pool,
  type WindowPlace,
  badField,
  parseIds,
} from '@jepa/engine';
import { IndexSearch } from './index-search.js';
import { Roots, asRootError } from './roots.js';

export interface ToolsOptions {
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
  /** An index folder (@jepa/search) for the search tool. */
  index?: string | undefined;
}

export type { Pool };

export interface ModelInfo extends Omit<ModelCard, 'operations'> {
  /** The tools this model serves. */
  tools: string[];
}

export const DEFAULT_MAX_MEDIA_BYTES = 64 * 2 ** 20;

/** The warnings of a sampled video's answer: there only when the decode ended early. */
export type Warnings = { warnings?: string[] };

type ModelArg = { model?: string | undefined };

export class McpTools {
  readonly engine: Engine;
  readonly roots: Roots;
  readonly maxMediaBytes: number;
  readonly ready: Promise<void>;
  readonly index: IndexSearch;

  private constructor(engine: Engine, roots: Roots, maxMediaBytes: number, index: string | null) {
    this.engine = engine;
    this.index = new IndexSearch(index, engine);
    this.roots = roots;
    this.maxMediaBytes = maxMediaBytes;
    this.ready = engine.ready;
  }

  /** Checks the options and the roots, and starts loading the models (`ready` settles when done). */
  static async create(options: ToolsOptions = {}): Promise<McpTools> {
    const roots = await Roots.create(options.roots ?? []);
    const engine = await Engine.create({
      models: options.models ?? [],
      modelsDir: options.modelsDir,
      // no model at all is allowed here: the tools list, and list_models answers with an empty list
      allowNoModels: true,
      allowPaths: roots.paths,
      threads: options.threads,
      device: options.device,
      maxBatch: options.maxBatch ?? 8,
      maxWaitMs: 2,
      maxQueue: options.maxQueue ?? 256,
      timeoutMs: options.timeoutMs ?? 120_000,
      listHint: '(list_models names them)',
      tempPrefix: 'jepa-mcp-',
      ...(options.log ? { log: options.log } : {}),
    });
    roots.onChange((policy) => engine.setAllowedPaths(policy));
    return new McpTools(engine, roots, options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES, options.index ?? null);
  }

  get timeoutMs(): number {
    return this.engine.timeoutMs;
  }

  async models(): Promise<ModelInfo[]> {
    return (await this.engine.models()).map(({ operations, ...card }) => {
      const tools = ['embed_image', 'embed_video', 'compare'];
      if (operations.includes('classify')) tools.push('classify_video');
      if (operations.includes('predict')) tools.push('predict_latents');
      if (operations.includes('plan')) tools.push('plan');
      return { ...card, tools };
    });
  }

  /** The rows of the --index nearest a query (media the engine embeds) or a stored row, as POST /v1/search. */
  search(args: Parameters<IndexSearch['search']>[0], signal?: AbortSignal): ReturnType<IndexSearch['search']> {
    return this.#call(args.model, () => this.index.search(args, callOf(signal)));
  }

  /** An engine call, its path refusals in the roots' words. */
  async #call<T>(model: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      if (model === undefined && (await this.engine.models()).length === 0)
        throw badField('model', 'no models are loaded: start jepa mcp with --model FILE or --models-dir DIR', 'no_models');
      return await work();
    } catch (err) {
      throw asRootError(err);
    }
  }

  async embed(
    args: ModelArg & { item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined; size?: ImageSize | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; dims: number; embedding: number[] }> {
    return this.#call(args.model, async () => {
      const r = await this.engine.embed(
        { model: args.model, items: [args.item], pool: args.pool, normalize: args.normalize, size: args.size },
        callOf(signal),
      );
      const v = r.data[0]!.vector.values;
      return { model: r.model, pool: r.pool, dims: v.length, embedding: Array.from(v) };
    });
  }

  /** As /v1/embeddings on one video item with sampling: one pooled vector per window, in order. */
  async embedWindows(
    args: ModelArg & { item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; dims: number; windows: (WindowPlace & { embedding: number[] })[] } & Warnings> {
    return this.#call(args.model, async () => {
      const r = await this.engine.embed({ model: args.model, items: [args.item], pool: args.pool, normalize: args.normalize }, callOf(signal));
      // no windows: the width the model's card gives its vectors
      const card = r.data.length > 0 ? null : await this.engine.card(r.model);
      const dims = r.data[0]?.vector.values.length ?? (r.pool === 'lewm' ? card!.state_dims! : card!.dims);
      const windows = r.data.map((e) => ({ ...e.place!, embedding: Array.from(e.vector.values) }));
      return { model: r.model, pool: r.pool, dims, windows, ...withWarnings(r.warnings) };
    });
  }

  /** Cosine similarity of each item's pooled vector to the query's (float64 sums), and the items ranked by it. */
  async compare(
    args: ModelArg & { query: ParsedItem; items: readonly ParsedItem[]; pool?: Pool | undefined },
    signal?: AbortSignal,
  ): Promise<{ model: string; pool: Pool; similarities: number[]; ranking: { index: number; similarity: number }[] }> {
    return this.#call(args.model, async () => {
      const r = await this.engine.embed({ model: args.model, items: [args.query, ...args.items], pool: args.pool }, callOf(signal));
      const [q, ...vs] = r.data.map((e) => e.vector.values);
      const similarities = vs.map((v) => cosine(q!, v));
      const ranking = similarities
        .map((similarity, index) => ({ index, similarity }))
        .sort((a, b) => b.similarity - a.similarity || a.index - b.index);
      return { model: r.model, pool: r.pool, similarities, ranking };
    });
  }

  /** As /v1/classify on one item. */
  async classify(args: ModelArg & { item: ParsedItem; topK?: number | undefined; logits?: boolean | undefined }, signal?: AbortSignal) {
    return this.#call(args.model, async () => {
      const r = await this.engine.classify({ model: args.model, items: [args.item], topK: args.topK }, callOf(signal));
      const c = r.data[0]!;
      return { model: r.model, top: c.top.map(score), ...(args.logits ? { logits: Array.from(c.logits) } : {}) };
    });
  }

  /** As /v1/classify on one video item with sampling: the top-k labels of each window, in order. */
  async classifyWindows(args: ModelArg & { item: ParsedItem; topK?: number | undefined; logits?: boolean | undefined }, signal?: AbortSignal) {
    return this.#call(args.model, async () => {
      const r = await this.engine.classify({ model: args.model, items: [args.item], topK: args.topK }, callOf(signal));
      const windows = r.data.map((c) => ({
        ...c.place!,
        top: c.top.map(score),
        ...(args.logits ? { logits: Array.from(c.logits) } : {}),
      }));
      return { model: r.model, windows, ...withWarnings(r.warnings) };
    });
  }

  /**
   * As /v1/predict (the masked predictor from the context tokens to the targets), then each predicted
   * target token's cosine to the encoder's own token at that id.
   */
  async predictLatents(
    args: ModelArg & { item: ParsedItem; context: unknown; target: unknown; maskIndex?: number | undefined },
    signal?: AbortSignal,
  ) {
    return this.#call(args.model, async () => {
      const contextIds = parseIds(args.context, 'context');
      const targetIds = parseIds(args.target, 'target');
      const r = await this.engine.predict({ model: args.model, item: args.item, contextIds, targetIds, maskIndex: args.maskIndex }, callOf(signal));
      const { tokens, dim } = r.encoder;
      if (r.outDim !== dim)
        throw badField('model', `the predictor's tokens are ${r.outDim} wide and the encoder's ${dim}: they cannot be compared`, 'unsupported_model');
      const cosines = r.targetIds.map((id, i) => cosine(r.predictions.subarray(i * dim, (i + 1) * dim), tokens.subarray(id * dim, (id + 1) * dim)));
      return {
        model: r.model,
        context_tokens: contextIds.length,
        target_ids: r.targetIds,
        dims: dim,
        cosines,
        mean_cosine: cosines.reduce((a, b) => a + b, 0) / cosines.length,
      };
    });
  }

  /**
   * As /v1/worldmodel/plan: CEM from the start frames toward the goal; then the cost of the planned
   * sequence itself (its rollout's last state against the goal's, in the model's action units).
   */
  async plan(
    args: ModelArg & {
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
    return this.#call(args.model, async () => {
      const r = await this.engine.plan(
        {
          model: args.model,
          images: args.start,
          imagesField: 'start',
          goal: args.goal,
          horizon: args.horizon,
          samples: args.samples,
          iterations: args.iterations,
          topK: args.topK,
          seed: args.seed,
          actionMean: args.actionMean,
          actionStd: args.actionStd,
          scorePlan: true,
        },
        callOf(signal),
      );
      const A = r.actionDim;
      return {
        model: r.model,
        history: r.history,
        horizon: r.horizon,
        action_dim: A,
        space: r.space,
        actions: Array.from({ length: r.horizon }, (_, t) => Array.from(r.actions.subarray(t * A, (t + 1) * A))),
        cost: r.cost!,
        best_costs: r.bestCosts,
      };
    });
  }

  /** Stops taking calls, waits for the compute in progress, disposes the models. Idempotent. */
  close(): Promise<void> {
    this.index.close();
    return this.engine.close();
  }
}

function callOf(signal: AbortSignal | undefined): CallOptions {
  return { signal };
}

function score(c: { label: string; index: number; prob: number; logit: number }) {
  return { label: c.label, index: c.index, prob: c.prob, logit: c.logit };
}

function withWarnings(warnings: string[]): Warnings {
  return warnings.length > 0 ? { warnings } : {};
}
