// A loaded model: its validated spec, the weights on one device, and the contexts that run it, which
// it records so that disposing the model disposes them once their running work has finished.
import { loadModelSpec, type ModelSpec } from '@jepa/gguf';
import { defaultThreads, openBackend, resolveDevice, trimHeap, type Backend } from '@jepa/native';
import { EncoderContext, type EncoderContextOptions } from './encoder-context.js';
import { GraphError } from './errors.js';
import { type RuntimeOptions, runtimeFromEnv } from './runtime-options.js';
import type { ModelHandle, ModelOwned } from './model-handle.js';
import { HeadContext, type HeadContextOptions } from './heads/head-context.js';
import { MaskedPredictorContext, type PredictorContextOptions } from './predictor/masked-predictor-context.js';
import { AlignContext, type AlignContextOptions } from './text/align-context.js';
import { TextContext, type TextContextOptions } from './text/text-context.js';
import { loadWeights, type Weights } from './weights.js';

export interface ModelLoadOptions {
  /** `cpu`, `cuda`, `cuda:N` or a GPU index; default JEPA_DEVICE, else the CPU. */
  device?: string | number;
  /** CPU threads per context; default JEPA_THREADS, else the CPUs this process may use (affinity, capped by a CFS quota rounded up). */
  threads?: number;
  /**
   * Load weights holding NaN or Inf. By default loading scans every f32 / f16 / bf16 value and every
   * quantized block scale, and refuses such a file with GraphError NON_FINITE naming the tensor.
   */
  allowNonFinite?: boolean;
  /** The run-time switches (runtimeFromEnv: JEPA_MAX_BATCH, JEPA_PANEL, ...); default the environment's, read now. */
  runtime?: RuntimeOptions;
  /** Told what the caller may want to know (a fallback the model's parts take), one line each; default silent. */
  notice?: (message: string) => void;
}

export class Model implements ModelHandle, AsyncDisposable {
  readonly device: string;
  readonly threads: number;
  readonly runtime: RuntimeOptions;
  readonly notice: (message: string) => void;
  #weights: Weights | undefined;
  #backend: Backend | undefined;
  readonly #owned = new Set<ModelOwned>();
  #disposal: Promise<void> | undefined;

  private constructor(
    readonly spec: ModelSpec,
    readonly path: string,
    device: string,
    threads: number,
    backend: Backend,
    weights: Weights,
    options: ModelLoadOptions & { runtime: RuntimeOptions },
  ) {
    this.device = device;
    this.threads = threads;
    this.runtime = options.runtime;
    this.notice = options.notice ?? (() => {});
    this.#backend = backend;
    this.#weights = weights;
  }

  /**
   * Validates the file (metadata, extents, dtypes, shapes, required tensors), checks its weights are
   * finite (unless allowNonFinite) and maps them.
   */
  static async load(path: string, options: ModelLoadOptions = {}): Promise<Model> {
    const spec = loadModelSpec(path);
    const device = resolveDevice(options.device);
    const threads = options.threads ?? defaultThreads();
    const runtime = options.runtime ?? runtimeFromEnv();
    const backend = openBackend({ device, threads });
    try {
      const weights = await loadWeights(spec, path, backend, runtime, { allowNonFinite: options.allowNonFinite === true, threads });
      return new Model(spec, path, device, threads, backend, weights, { ...options, runtime });
    } catch (err) {
      backend.dispose();
      throw err;
    }
  }

  get weights(): Weights {
    if (!this.#weights) throw new GraphError('DISPOSED', 'the model was disposed');
    return this.#weights;
  }

  /** A context: one stream of work with its own backend (thread pool) and graph cache. */
  createContext(options: EncoderContextOptions = {}): EncoderContext {
    if (options.device !== undefined && resolveDevice(options.device) !== this.device)
      throw new GraphError('DEVICE_MISMATCH', `the model lives on ${this.device}; a context on ${resolveDevice(options.device)} is refused`);
    return new EncoderContext(this, options);
  }

  /** The attentive classifier over encoder tokens (a model with a head). */
  createHeadContext(options: HeadContextOptions = {}): HeadContext {
    return new HeadContext(this, options);
  }

  /** The V-JEPA 2 / 2.1 masked predictor (a model with `jepa.pred.kind = masked`). */
  createPredictorContext(options: PredictorContextOptions = {}): MaskedPredictorContext {
    return new MaskedPredictorContext(this, options);
  }

  /** dino.txt's text tower (a model with jepa.text.*). */
  createTextContext(options: TextContextOptions = {}): TextContext {
    return new TextContext(this, options);
  }

  /** dino.txt's vision head over encoder outputs (a model with jepa.text.*). */
  createAlignContext(options: AlignContextOptions = {}): AlignContext {
    return new AlignContext(this, options);
  }

  /** Whether dispose() was called: a context's calls that start after it are refused (DISPOSED). */
  get disposed(): boolean {
    return this.#disposal !== undefined;
  }

  /** Records a context or world model over this model, to be disposed with it. */
  track(owned: ModelOwned): void {
    if (this.disposed) throw new GraphError('DISPOSED', 'the model was disposed');
    this.#owned.add(owned);
  }

  /** Forgets one disposed on its own. */
  untrack(owned: ModelOwned): void {
    this.#owned.delete(owned);
  }

  /**
   * Refuses every call that has not started, disposes the contexts and world models over the model,
   * each once its running call has finished, then releases the weights and returns the freed heap to
   * the OS (malloc_trim). Resolves when all of it is
   * done; a second call returns the same promise.
   */
  dispose(): Promise<void> {
    // from the next microtask: `disposed` holds before any owner's dispose (which may call this again) runs
    this.#disposal ??= Promise.resolve().then(() => this.#release());
    return this.#disposal;
  }

  async #release(): Promise<void> {
    const owned = [...this.#owned];
    this.#owned.clear();
    await Promise.allSettled(owned.map((o) => o.dispose()));
    this.#weights?.dispose();
    this.#backend?.dispose();
    this.#weights = undefined;
    this.#backend = undefined;
    // the contexts' compute buffers and the copies made at load came from the C heap, which glibc
    // otherwise keeps for reuse: a server that unloads a model wants the memory back
    trimHeap();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
