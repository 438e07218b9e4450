// A loaded model and everything that runs it, owned together: its input recipe, a shared encoder
// context, the head, masked-predictor and world-model parts made on first use, and the pooling that
// turns encoder outputs into vectors. The engine's models, the corpus jobs and every CLI command run a
// model through one of these. Disposing it waits for the calls in flight, then frees the weights.
import type { ModelSpec } from '@jepa/gguf';
import { ClipTokenizer, clipVocabFromMerges } from '@jepa/text';
import {
  type AlignContext,
  type AlignContextOptions,
  type EncodeOutput,
  type EncoderContext,
  type EncoderContextOptions,
  type HeadContext,
  type HeadContextOptions,
  type MaskedPredictorContext,
  Model,
  type ModelLoadOptions,
  type PredictorContextOptions,
  predictorEncoderOutput,
  type TextContext,
  type TextContextOptions,
} from '@jepa/graph';
import { type ItemTensor, ModelInput, type ModelInputOptions } from '@jepa/input';
import { AcWorldModel, type AcWorldModelOptions, WorldModel, type WorldModelOptions } from '@jepa/worldmodel';
import { type Pool, type Vector, alignedVectors, choosePool, headPooled, l2NormalizeRows, poolOutputs, projectStates } from './pooling.js';
import { textScores } from './text-scores.js';
import { requirePart } from './model-parts.js';
import { disposedError } from './refusal.js';
import { StackBuffer } from './stack-buffer.js';

export interface SessionOptions extends ModelLoadOptions {
  /** What refusals call the model (the engine's id); default its name. */
  id?: string;
  /** The shared encoder context's options: batch, flash, kv cache, deadline, layers. */
  encoder?: EncoderContextOptions;
  /** How files and bytes become tensors: decoder, EXIF, size. */
  input?: ModelInputOptions;
  head?: HeadContextOptions;
  predictor?: PredictorContextOptions;
  world?: WorldModelOptions;
  actionConditioned?: AcWorldModelOptions;
  /** dino.txt's text tower and vision head. */
  text?: TextContextOptions;
  align?: AlignContextOptions;
}

/** Options of `embedText`. */
export interface TextEmbedOptions {
  /** L2-normalise each vector. */
  normalize?: boolean;
  /** Runs the text tower's graph: the engine's compute lane. */
  compute?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** How a call pools: the pool (default the model's, choosePool), L2 normalisation, and what runs the head or projector graph. */
export interface PoolOptions {
  pool?: Pool;
  normalize?: boolean;
  /** Runs the graphs after the encoder (the classifier's pooler, LeWM's projector): the engine's compute lane. */
  compute?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** An input of `embed`: an image file, an image's bytes, or a tensor the model takes as it is. */
export type SessionInput = string | Uint8Array | ItemTensor;

/** Recipes at other sizes kept at once (the oldest goes first). */
const SIZED_INPUTS = 8;

/** Inputs per encoder call of `embed` (the encoder splits a batch past its own maximum). */
const EMBED_BATCH = 32;

export class ModelSession implements AsyncDisposable {
  readonly id: string;
  readonly input: ModelInput;
  readonly encoder: EncoderContext;
  readonly #options: SessionOptions;
  readonly #stack = new StackBuffer();
  readonly #running = new Set<Promise<unknown>>();
  readonly #sized = new Map<string, ModelInput>();
  #disposal: Promise<void> | undefined;
  #head: HeadContext | undefined;
  #predictor: MaskedPredictorContext | undefined;
  #predictorEncoder: EncoderContext | undefined;
  #world: WorldModel | undefined;
  #actionConditioned: AcWorldModel | undefined;
  #text: TextContext | undefined;
  #align: AlignContext | undefined;
  #tokenizer: ClipTokenizer | undefined;

  /** Takes the model over: disposing the session disposes it. */
  constructor(
    readonly model: Model,
    options: SessionOptions = {},
  ) {
    this.#options = options;
    this.id = options.id ?? model.spec.name;
    this.input = new ModelInput(model.spec, options.input);
    this.encoder = model.createContext(options.encoder);
  }

  /** Loads the file (Model.load: validated, weights scanned and mapped) into a session that owns it. */
  static async load(path: string, options: SessionOptions = {}): Promise<ModelSession> {
    const model = await Model.load(path, options);
    try {
      return new ModelSession(model, options);
    } catch (err) {
      await model.dispose();
      throw err;
    }
  }

  get spec(): ModelSpec {
    return this.model.spec;
  }

  get device(): string {
    return this.model.device;
  }

  /**
   * The input recipe at another size: every image and frame resized straight to height × width, no crop
   * (`ModelInput`'s `size`), for encoders that run any patch grid; the model's own without one.
   */
  inputAt(size?: { height: number; width: number }): ModelInput {
    if (!size) return this.input;
    const key = `${size.height}x${size.width}`;
    let input = this.#sized.get(key);
    if (!input) {
      if (this.#sized.size >= SIZED_INPUTS) this.#sized.delete(this.#sized.keys().next().value!);
      input = new ModelInput(this.spec, { ...this.#options.input, size });
      this.#sized.set(key, input);
    }
    return input;
  }

  /** Another stream of work over the same weights (a worker's second job at once); disposed with the session. */
  createEncoder(options: EncoderContextOptions = this.#options.encoder ?? {}): EncoderContext {
    return this.model.createContext(options);
  }

  head(): HeadContext {
    requirePart(this.spec, this.id, 'head');
    this.#head ??= this.model.createHeadContext(this.#options.head);
    return this.#head;
  }

  predictor(): MaskedPredictorContext {
    requirePart(this.spec, this.id, 'predictor');
    this.#predictor ??= this.model.createPredictorContext(this.#options.predictor);
    return this.#predictor;
  }

  /** The encoder whose output the predictor reads: the shared one, or one in hierarchy mode (V-JEPA 2.1 g/G). */
  predictorEncoder(): EncoderContext {
    if (predictorEncoderOutput(this.spec) === 'final') return this.encoder;
    this.#predictorEncoder ??= this.model.createContext({ ...this.#options.encoder, output: 'hierarchy' });
    return this.#predictorEncoder;
  }

  world(): WorldModel {
    requirePart(this.spec, this.id, 'world');
    this.#world ??= new WorldModel(this.model, this.#options.world);
    return this.#world;
  }

  /** V-JEPA 2-AC's predictor and planner over this model. */
  actionConditioned(): AcWorldModel {
    requirePart(this.spec, this.id, 'actionConditioned');
    this.#actionConditioned ??= new AcWorldModel(this.model, this.#options.actionConditioned);
    return this.#actionConditioned;
  }

  /** Whether the model has dino.txt's text side: embedText, textScores and the 'aligned' pool. */
  get hasText(): boolean {
    return this.spec.text !== null;
  }

  /** dino.txt's text tower; refused (model: … has no text tower) on a model without one. */
  textTower(): TextContext {
    requirePart(this.spec, this.id, 'text');
    this.#text ??= this.model.createTextContext(this.#options.text);
    return this.#text;
  }

  /** dino.txt's vision head over encoder outputs. */
  visionHead(): AlignContext {
    requirePart(this.spec, this.id, 'text');
    this.#align ??= this.model.createAlignContext(this.#options.align);
    return this.#align;
  }

  /** CLIP's tokenizer over the model's own merges (jepa.text.merges). */
  tokenizer(): ClipTokenizer {
    requirePart(this.spec, this.id, 'text');
    this.#tokenizer ??= new ClipTokenizer(clipVocabFromMerges(this.spec.text!.merges, `${this.id}'s jepa.text.merges`));
    return this.#tokenizer;
  }

  /**
   * One aligned vector per text, in order ([out_dim] each): CLIP's tokenizer, cut to the context (77) with the end
   * token last, then the text tower. Comparable with images' 'aligned' vectors by textScores.
   */
  embedText(texts: readonly string[], options: TextEmbedOptions = {}): Promise<Vector[]> {
    return this.#inFlight(async () => {
      const tower = this.textTower();
      const context = this.spec.text!.context;
      const rows = texts.map((t) => this.tokenizer().tokenize(t, context));
      const compute = options.compute ?? ((work) => work());
      const vectors = (await compute(() => tower.embed(rows))).map((values) => ({ values, shape: [values.length] }));
      if (options.normalize) for (const v of vectors) l2NormalizeRows(v.values, v.values.length);
      return vectors;
    });
  }

  /**
   * exp(logit_scale)·cos of every image vector ('aligned') with every text vector: [images][texts]. The one score
   * of dino.txt (zero-shot logits, text search ranks).
   */
  textScores(images: readonly (Vector | ArrayLike<number>)[], texts: readonly (Vector | ArrayLike<number>)[]): Float32Array[] {
    requirePart(this.spec, this.id, 'text');
    const values = (v: Vector | ArrayLike<number>) => ('values' in v ? v.values : v);
    return textScores(images.map(values), texts.map(values), this.spec.text!.logitScale);
  }

  /** The pooling a call uses: its own, else 'aligned' on a dino.txt model, else CLS where the model has one, else the patch mean; `field` names it in a refusal. */
  choosePool(pool?: Pool, field = 'pool'): Pool {
    return choosePool(this.spec, pool, field);
  }

  /** One vector per item of the outputs, in order: pooled, projected (lewm) or the head's pooler, then L2-normalised when asked. */
  async pool(outs: readonly EncodeOutput[], pool: Pool, options: Omit<PoolOptions, 'pool'> = {}): Promise<Vector[]> {
    const compute = options.compute ?? ((work) => work());
    const vectors =
      pool === 'lewm'
        ? await compute(() => projectStates(this.world(), outs))
        : pool === 'pooler'
          ? await compute(() => headPooled(this.head(), outs))
          : pool === 'aligned'
            ? await compute(() => alignedVectors(this.visionHead(), outs))
            : poolOutputs(outs, pool);
    if (options.normalize) for (const v of vectors) l2NormalizeRows(v.values, v.shape[v.shape.length - 1]!);
    return vectors;
  }

  /** Encodes tensors of one shape as one batch. */
  encodeBatch(tensors: readonly ItemTensor[], encoder: EncoderContext = this.encoder): Promise<EncodeOutput> {
    return this.#inFlight(async () => {
      if (tensors.length === 0) throw new RangeError('encodeBatch: no tensors');
      return this.#encodeBatch(tensors, encoder);
    });
  }

  /** Tensors of one shape to one vector each: encoded as one batch, then pooled. */
  embedBatch(tensors: readonly ItemTensor[], options: PoolOptions & { encoder?: EncoderContext } = {}): Promise<Vector[]> {
    return this.#inFlight(async () => this.#embedBatch(tensors, this.choosePool(options.pool), options));
  }

  /**
   * Image files, image bytes or tensors to one vector each, in order: the one call from an input to an
   * embedding. Consecutive inputs of one shape share a batch (at most 32).
   */
  embed(inputs: readonly SessionInput[], options: PoolOptions = {}): Promise<Vector[]> {
    return this.#inFlight(async () => this.#embed(inputs, this.choosePool(options.pool), options));
  }

  async #embed(inputs: readonly SessionInput[], pool: Pool, options: PoolOptions): Promise<Vector[]> {
    const tensors = await Promise.all(inputs.map((i) => this.#tensor(i)));
    const vectors: Vector[] = [];
    for (let start = 0; start < tensors.length; ) {
      const shape = tensors[start]!.shape.join();
      let end = start + 1;
      while (end < tensors.length && end - start < EMBED_BATCH && tensors[end]!.shape.join() === shape) end++;
      vectors.push(...(await this.#embedBatch(tensors.slice(start, end), pool, options)));
      start = end;
    }
    return vectors;
  }

  #encodeBatch(tensors: readonly ItemTensor[], encoder: EncoderContext): Promise<EncodeOutput> {
    if (tensors.length === 1) return encoder.encode({ data: tensors[0]!.data, shape: [1, ...tensors[0]!.shape] });
    return this.#stack.use(tensors, (input) => encoder.encode(input));
  }

  async #embedBatch(tensors: readonly ItemTensor[], pool: Pool, options: PoolOptions & { encoder?: EncoderContext }): Promise<Vector[]> {
    return this.pool([await this.#encodeBatch(tensors, options.encoder ?? this.encoder)], pool, options);
  }

  /** Runs one of the session's calls, counted until it settles; refused once dispose() is called. */
  #inFlight<T>(call: () => Promise<T>): Promise<T> {
    if (this.#disposal) return Promise.reject(disposedError());
    const running = call();
    this.#running.add(running);
    const done = () => this.#running.delete(running);
    running.then(done, done);
    return running;
  }

  #tensor(input: SessionInput): Promise<ItemTensor> {
    if (typeof input === 'string') return this.input.image(input);
    if (input instanceof Uint8Array) return this.input.imageBytes(input);
    return Promise.resolve(input);
  }

  /**
   * Refuses new calls, waits for the session's calls in flight (decoding included), then disposes every
   * context and world model once its running work ends, then the weights. A second call returns the same promise.
   */
  dispose(): Promise<void> {
    this.#disposal ??= Promise.allSettled([...this.#running]).then(() => this.model.dispose());
    return this.#disposal;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
