// One loaded model and the contexts that run it: an encoder context shared by every request, and the
// head, predictor and world-model contexts made on first use.
import type { ModelSpec } from '@jepa/gguf';
import { type EncoderContext, type HeadContext, type MaskedPredictorContext, type Model, predictorEncoderOutput } from '@jepa/graph';
import { ModelInput } from '@jepa/input';
import { WorldModel } from '@jepa/worldmodel';
import { badField } from '../errors.js';
import type { Batcher } from '../queue/batcher.js';
import type { Operation } from '../queue/engine-metrics.js';

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
}

export type ModelState = 'unloaded' | 'loading' | 'loaded' | 'unloading';

/** What a card says of where the model is. */
export type ModelResidency = Pick<ModelCard, 'state' | 'memory_bytes' | 'keep_alive' | 'expires_at' | 'loads'>;

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
    dims: s.enc.embedDim,
    ...(s.pred?.kind === 'action' ? { state_dims: s.pred.embedDim } : {}),
    frames: s.enc.nFrames,
    image_size: s.enc.imgSize,
    recipe: s.pre,
    labels: s.labels,
    operations,
    ...residency,
  };
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

  /** The bytes the model's weights hold (Weights.bytes). */
  get bytes(): number {
    return this.model.weights.bytes;
  }

  /** The model disposes what it created (every context, the world model) once their running calls end. */
  dispose(): Promise<void> {
    return this.model.dispose();
  }
}
