// One loaded model in the engine: its card, and its session (the encoder context shared by every
// request, the head, predictor and world-model parts made on first use) behind the engine's batchers.
import type { ModelSpec } from '@jepa/gguf';
import type { EncoderContext, HeadContext, MaskedPredictorContext, Model, RuntimeOptions } from '@jepa/graph';
import type { ModelInput } from '@jepa/input';
import type { ModelSession, Vector } from '@jepa/session';
import type { WorldModel } from '@jepa/worldmodel';
import type { Batcher } from '../queue/batcher.js';
import type { TextBatcher } from '../queue/text-batcher.js';
import { TextCache, copyVector } from '../queue/text-cache.js';
import type { Operation } from '../queue/engine-metrics.js';

export interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'jepa';
  name: string;
  family: string;
  /** Width of an embedding of the default pool (the encoder's; a dino.txt model's aligned vector; a LeWM state with pool "lewm" is `state_dims` wide). */
  dims: number;
  state_dims?: number;
  frames: number;
  image_size: number;
  recipe: ModelSpec['pre'];
  labels: readonly string[] | null;
  /** Whether it takes words (a dino.txt model's text side): text embeddings, zero-shot labels, text search. */
  text: boolean;
  /** The operations this model serves: embed and features always, the rest as its heads allow. */
  operations: Operation[];
  /** Whether the weights are in memory now (a request loads an unloaded model). */
  state: ModelState;
  /** Bytes the weights hold now (0 unloaded; the file's tensor bytes while loading). */
  memory_bytes: number;
  /** Idle time after which the model unloads: `5m`, `forever`. */
  keep_alive: string;
  /** When the idle model unloads (Unix seconds), or null. */
  expires_at: number | null;
  /** Loads since start-up. */
  loads: number;
  /** A model named `hf:`: its files are in the caches (GET /v1/models lists the cached ones not served yet as well). */
  downloaded?: true;
}

export type ModelState = 'unloaded' | 'loading' | 'loaded' | 'unloading';

/** What a card says of where the model is. */
export type ModelResidency = Pick<ModelCard, 'state' | 'memory_bytes' | 'keep_alive' | 'expires_at' | 'loads' | 'downloaded'>;

/** A model's card from its spec: what it is and serves, then where it is now. */
export function modelCard(id: string, created: number, s: ModelSpec, residency: ModelResidency): ModelCard {
  const operations: Operation[] = ['embed', 'features'];
  if (s.head) operations.push('classify');
  if (s.pred?.kind === 'masked') operations.push('predict');
  if (s.pred?.kind === 'action') operations.push('rollout', 'plan');
  return {
    id,
    object: 'model',
    created,
    owned_by: 'jepa',
    name: s.name,
    family: s.family,
    dims: s.text ? s.text.outDim : s.enc.embedDim,
    ...(s.pred?.kind === 'action' ? { state_dims: s.pred.embedDim } : {}),
    frames: s.enc.nFrames,
    image_size: s.enc.imgSize,
    recipe: s.pre,
    labels: s.labels,
    text: s.text !== null,
    operations,
    ...residency,
  };
}

export interface SlotOptions {
  threads?: number;
  device?: string;
  runtime: RuntimeOptions;
  /** Where the models' notices go (a fallback taken), one line each. */
  notice: (message: string) => void;
  maxBatch: number;
  /** The batcher that feeds this model's encoder context. */
  batcher: (encoder: EncoderContext) => Batcher;
  /** The batcher that feeds this model's text tower (a dino.txt model), from the session's text embedding. */
  textBatcher: (embed: (texts: readonly string[]) => Promise<Vector[]>) => TextBatcher;
}

/** A loaded model in the engine: its session, and the batchers that feed the session's encoders. */
export class ModelSlot {
  readonly batcher: Batcher;
  #hierarchy: Batcher | undefined;
  #text: TextBatcher | undefined;
  readonly #textCache = new TextCache();

  constructor(
    readonly id: string,
    readonly session: ModelSession,
    readonly created: number,
    readonly options: SlotOptions,
  ) {
    this.batcher = options.batcher(session.encoder);
  }

  get model(): Model {
    return this.session.model;
  }

  get spec(): ModelSpec {
    return this.session.spec;
  }

  get input(): ModelInput {
    return this.session.input;
  }

  head(): HeadContext {
    return this.session.head();
  }

  predictor(): MaskedPredictorContext {
    return this.session.predictor();
  }

  /** The batcher of the text tower (made on first use; the session refuses a model without one). */
  textBatcher(): TextBatcher {
    this.#text ??= this.options.textBatcher((texts) => this.session.embedText(texts));
    return this.#text;
  }

  /**
   * The texts' vectors (unnormalised), in order: those this model computed before from its text cache, the
   * others, each once, through the text batcher; `counted` hears how many came from each.
   */
  async embedTexts(texts: readonly string[], signal: AbortSignal, counted: (cached: number, computed: number) => void): Promise<Vector[]> {
    const found = texts.map((t) => this.#textCache.get(t));
    const missing = [...new Set(texts.filter((_, i) => found[i] === undefined))];
    const computed = new Map<string, Vector>();
    if (missing.length > 0) for (const [i, v] of (await this.textBatcher().embed(missing, signal)).entries()) computed.set(missing[i]!, v);
    for (const [t, v] of computed) this.#textCache.set(t, v);
    counted(texts.length - missing.length, missing.length);
    // each place gets its own copy: a text given twice is normalised twice, in place
    return texts.map((t, i) => found[i] ?? copyVector(computed.get(t)!));
  }

  /** The batcher whose encoder gives what the predictor reads: the shared one, or a hierarchy-mode one (V-JEPA 2.1 g/G). */
  predictorBatcher(): Batcher {
    const encoder = this.session.predictorEncoder();
    if (encoder === this.session.encoder) return this.batcher;
    this.#hierarchy ??= this.options.batcher(encoder);
    return this.#hierarchy;
  }

  world(): WorldModel {
    return this.session.world();
  }

  /** The bytes the model's weights hold (Weights.bytes). */
  get bytes(): number {
    return this.session.model.weights.bytes;
  }

  /** The session disposes what it created (every context, the world model) once their running calls end. */
  dispose(): Promise<void> {
    return this.session.dispose();
  }
}
