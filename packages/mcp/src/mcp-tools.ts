// The tools' engine: the models (an Engine with the roots as the folders a path may name), the --index,
// and the one way a tool's work is called. What each tool computes is in its own file under tools/,
// the engine's operations (the ones the HTTP routes call) shaped as the tool answers; a tool gives
// the bits the matching HTTP route gives for the same input.
import { Engine, type ModelCard, type Pool, badField } from '@jepa/engine';
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

export interface CachedModelInfo {
  id: string;
  state: 'unloaded' | 'pulling';
  downloaded: boolean;
  converted: boolean;
  family: string | null;
}

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
      if (card.text) tools.push('embed_text', 'classify');
      if (operations.includes('classify')) tools.push('classify_video');
      if (operations.includes('predict')) tools.push('predict_latents');
      if (operations.includes('plan')) tools.push('plan');
      return { ...card, tools };
    });
  }

  /** The hf: models the caches hold that no tool serves yet (a tool's model may name one: it is pulled first). */
  async cachedModels(): Promise<CachedModelInfo[]> {
    return (await this.engine.hubModels()).map((c) => ({
      id: c.id,
      state: c.state,
      downloaded: c.downloaded,
      converted: c.converted,
      family: c.family,
    }));
  }

  /** A tool's engine call, its path refusals in the roots' words; refused at once when no model is loaded and none is named. */
  async call<T>(model: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      if (model === undefined && (await this.engine.models()).length === 0)
        throw badField('model', 'no models are loaded: start jepa mcp with --model FILE or --models-dir DIR', 'no_models');
      return await work();
    } catch (err) {
      throw asRootError(err);
    }
  }

  /** Stops taking calls, waits for the compute in progress, disposes the models. Idempotent. */
  close(): Promise<void> {
    this.index.close();
    return this.engine.close();
  }
}
