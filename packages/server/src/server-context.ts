// The model registry: one Model per file, with the contexts that run it (an encoder context shared
// by every request, and the head, predictor and world-model contexts made on first use).
import { readdirSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { ModelSpec } from '@jepa/gguf';
import { Model, predictorEncoderOutput, type EncoderContext, type HeadContext, type MaskedPredictorContext } from '@jepa/graph';
import { ModelInput } from '@jepa/input';
import { WorldModel } from '@jepa/worldmodel';
import { badField, notFound } from './errors.js';
import type { Batcher } from './server-queue.js';

export interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'jepa';
  name: string;
  family: string;
  /** Width of an embedding (the encoder's; a LeWM state with pool "lewm" is `state_dims` wide). */
  dims: number;
  state_dims?: number;
  frames: number;
  image_size: number;
  recipe: ModelSpec['pre'];
  labels: readonly string[] | null;
  endpoints: string[];
}

export interface SlotOptions {
  threads?: number;
  device?: string;
  maxBatch: number;
  /** The batcher that feeds this model's encoder context. */
  batcher: (encoder: EncoderContext) => Batcher;
}

export class ModelSlot {
  readonly encoder: EncoderContext;
  readonly batcher: Batcher;
  readonly input: ModelInput;
  #head: HeadContext | undefined;
  #predictor: MaskedPredictorContext | undefined;
  #hierarchy: { encoder: EncoderContext; batcher: Batcher } | undefined;
  #world: WorldModel | undefined;

  constructor(
    readonly id: string,
    readonly model: Model,
    readonly created: number,
    readonly options: SlotOptions,
  ) {
    this.encoder = model.createContext({ maxBatch: options.maxBatch });
    this.batcher = options.batcher(this.encoder);
    this.input = new ModelInput(model.spec, { exifOrient: true, decoder: 'native' });
  }

  get spec(): ModelSpec {
    return this.model.spec;
  }

  head(): HeadContext {
    if (!this.spec.head) throw badField('model', `${this.id} has no classifier head`, 'unsupported_model');
    this.#head ??= this.model.createHeadContext();
    return this.#head;
  }

  predictor(): MaskedPredictorContext {
    const p = this.spec.pred;
    if (p?.kind !== 'masked') throw badField('model', `${this.id} has no masked predictor`, 'unsupported_model');
    this.#predictor ??= this.model.createPredictorContext();
    return this.#predictor;
  }

  /** The batcher whose encoder gives what the predictor reads: the shared one, or a hierarchy-mode one (V-JEPA 2.1 g/G). */
  predictorBatcher(): Batcher {
    if (predictorEncoderOutput(this.spec) === 'final') return this.batcher;
    if (!this.#hierarchy) {
      const encoder = this.model.createContext({ maxBatch: this.options.maxBatch, output: 'hierarchy' });
      this.#hierarchy = { encoder, batcher: this.options.batcher(encoder) };
    }
    return this.#hierarchy.batcher;
  }

  world(): WorldModel {
    if (this.spec.pred?.kind !== 'action')
      throw badField('model', `${this.id} is not a LeWorldModel (no action-conditioned predictor)`, 'unsupported_model');
    this.#world ??= new WorldModel(this.model);
    return this.#world;
  }

  card(): ModelCard {
    const s = this.spec;
    const endpoints = ['/v1/embeddings', '/v1/features'];
    if (s.head) endpoints.push('/v1/classify');
    if (s.pred?.kind === 'masked') endpoints.push('/v1/predict');
    if (s.pred?.kind === 'action') endpoints.push('/v1/worldmodel/rollout', '/v1/worldmodel/plan');
    return {
      id: this.id,
      object: 'model',
      created: this.created,
      owned_by: 'jepa',
      name: s.name,
      family: s.family,
      dims: s.enc.embedDim,
      ...(s.pred?.kind === 'action' ? { state_dims: s.pred.embedDim } : {}),
      frames: s.enc.nFrames,
      image_size: s.enc.imgSize,
      recipe: s.pre,
      labels: s.labels,
      endpoints,
    };
  }

  dispose(): void {
    this.#head?.dispose();
    this.#predictor?.dispose();
    this.#hierarchy?.encoder.dispose();
    this.#world?.dispose();
    this.encoder.dispose();
    this.model.dispose();
  }
}

/** The files to serve: each --model, then every .gguf in --models-dir (sorted); ids must not clash. */
export function modelFiles(models: readonly string[], modelsDir: string | undefined): { id: string; path: string }[] {
  const paths = models.map((m) => resolve(m));
  if (modelsDir !== undefined) {
    let names: string[];
    try {
      names = readdirSync(modelsDir);
    } catch (err) {
      throw new Error(`--models-dir ${modelsDir}: ${(err as Error).message}`);
    }
    for (const name of names.filter((n) => n.toLowerCase().endsWith('.gguf')).sort()) paths.push(resolve(modelsDir, name));
  }
  if (paths.length === 0) throw new Error('no models: give --model FILE or --models-dir DIR (with .gguf files)');
  const seen = new Map<string, string>();
  return paths.map((path) => {
    const id = basename(path).replace(/\.gguf$/i, '');
    const other = seen.get(id);
    if (other !== undefined) throw new Error(`two models would be called '${id}': ${other} and ${path}`);
    seen.set(id, path);
    return { id, path };
  });
}

export class ModelRegistry {
  readonly #slots = new Map<string, ModelSlot>();
  #disposed = false;

  constructor(readonly files: readonly { id: string; path: string }[]) {}

  /** Loads every file in order; `onLoaded` hears each one's load time. A failure disposes what loaded. */
  async load(options: SlotOptions, onLoaded: (id: string, seconds: number) => void): Promise<void> {
    try {
      for (const { id, path } of this.files) {
        // a load holds the event loop; between loads /health answers (503 until the last one is in)
        await new Promise((next) => setImmediate(next));
        const t0 = performance.now();
        const model = await Model.load(path, {
          ...(options.threads ? { threads: options.threads } : {}),
          ...(options.device ? { device: options.device } : {}),
        });
        if (this.#disposed) {
          model.dispose();
          return;
        }
        let slot: ModelSlot;
        try {
          slot = new ModelSlot(id, model, Math.floor(statSync(path).mtimeMs / 1000), options);
        } catch (err) {
          model.dispose();
          throw err;
        }
        this.#slots.set(id, slot);
        onLoaded(id, (performance.now() - t0) / 1000);
      }
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  get size(): number {
    return this.#slots.size;
  }

  /** The named model; the only one when the request names none. */
  get(id: unknown): ModelSlot {
    if (id === undefined || id === null) {
      if (this.#slots.size === 1) return this.#slots.values().next().value!;
      throw badField('model', `required: ${this.#slots.size} models are loaded (GET /v1/models lists them)`, 'missing_field');
    }
    if (typeof id !== 'string') throw badField('model', 'must be a string');
    const slot = this.#slots.get(id) ?? this.#slots.get(id.replace(/\.gguf$/i, ''));
    if (!slot)
      throw notFound(
        `model '${id.length > 200 ? `${id.slice(0, 200)}…` : id}' is not loaded (GET /v1/models lists them)`,
        'model_not_found',
        'model',
      );
    return slot;
  }

  cards(): ModelCard[] {
    return [...this.#slots.values()].map((s) => s.card());
  }

  card(id: string): ModelCard {
    const slot = this.#slots.get(id);
    if (!slot) throw notFound(`model '${id}' is not loaded`, 'model_not_found', 'model');
    return slot.card();
  }

  dispose(): void {
    this.#disposed = true;
    for (const slot of this.#slots.values()) slot.dispose();
    this.#slots.clear();
  }
}
