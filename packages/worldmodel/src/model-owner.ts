// What LeWM's and V-JEPA 2-AC's world models share over a Model: a graph runner, an encoder context
// made on first use, and their place among the model's owned things, so that disposing the model
// disposes them (and one that owns its model, from load(), disposes it in turn).
import { GraphRunner, Model, type BuiltGraph, type EncoderContext, type ModelLoadOptions, type ModelOwned } from '@jepa/graph';

export interface ModelOwnerOptions {
  threads?: number;
  /** Naive mul_mat + soft_max_ext attention instead of flash attention. */
  noFlash?: boolean;
}

/** Loads a model for a world model that owns it (`make` passes ownsModel): disposed with it, or at once when `make` refuses it. */
export async function loadOwned<T>(path: string, options: ModelLoadOptions, make: (model: Model) => T): Promise<T> {
  const model = await Model.load(path, options);
  try {
    return make(model);
  } catch (err) {
    await model.dispose();
    throw err;
  }
}

export abstract class ModelOwner<G extends BuiltGraph> implements ModelOwned, AsyncDisposable {
  readonly model: Model;
  protected readonly runner: GraphRunner<G>;
  readonly #options: ModelOwnerOptions;
  readonly #ownsModel: boolean;
  #encoder: EncoderContext | undefined;
  #disposal: Promise<void> | undefined;

  /** Refused (GraphError DISPOSED) on a disposed model. */
  protected constructor(model: Model, options: ModelOwnerOptions, ownsModel: boolean) {
    model.track(this);
    this.model = model;
    this.#options = options;
    this.#ownsModel = ownsModel;
    this.runner = new GraphRunner<G>(model, options.threads);
  }

  /** The encoder context, made on first use. */
  protected get encoder(): EncoderContext {
    this.#encoder ??= this.model.createContext({
      ...(this.#options.threads ? { threads: this.#options.threads } : {}),
      noFlash: this.#options.noFlash ?? false,
    });
    return this.#encoder;
  }

  /** Whether dispose() (its own or its model's) was called: later calls are refused (DISPOSED). */
  get disposed(): boolean {
    return this.#disposal !== undefined;
  }

  /** Refuses calls that have not started, waits for the running one, then frees its graphs (and the model it owns). */
  dispose(): Promise<void> {
    this.#disposal ??= this.#release();
    return this.#disposal;
  }

  async #release(): Promise<void> {
    this.model.untrack(this);
    await Promise.all([this.#encoder?.dispose(), this.runner.dispose()]);
    // a model that is disposing waits for this one: it must not be waited for here in turn
    if (this.#ownsModel && !this.model.disposed) await this.model.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
