// A loaded model: its validated spec, the weights on one device, and the contexts that run it.
import { loadModelSpec, type ModelSpec } from '@jepa/gguf';
import { openBackend, resolveDevice, type Backend } from '@jepa/native';
import { availableParallelism } from 'node:os';
import { EncoderContext, type EncoderContextOptions } from './encoder-context.js';
import { GraphError } from './errors.js';
import { HeadContext, type HeadContextOptions } from './heads/head-context.js';
import { MaskedPredictorContext, type PredictorContextOptions } from './predictor/masked-predictor-context.js';
import { loadWeights, type Weights } from './weights.js';

export interface ModelLoadOptions {
  /** `cpu`, `cuda`, `cuda:N` or a GPU index; default JEPA_DEVICE, else the CPU. */
  device?: string | number;
  /** CPU threads per context; default the machine's available parallelism. */
  threads?: number;
  /**
   * Load weights holding NaN or Inf. By default loading scans every f32 / f16 / bf16 value and every
   * quantized block scale, and refuses such a file with GraphError NON_FINITE naming the tensor.
   */
  allowNonFinite?: boolean;
}

export class Model implements Disposable {
  readonly device: string;
  readonly threads: number;
  #weights: Weights | undefined;
  #backend: Backend | undefined;

  private constructor(
    readonly spec: ModelSpec,
    readonly path: string,
    device: string,
    threads: number,
    backend: Backend,
    weights: Weights,
  ) {
    this.device = device;
    this.threads = threads;
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
    const threads = options.threads ?? availableParallelism();
    const backend = openBackend({ device, threads });
    try {
      const weights = await loadWeights(spec, path, backend, { allowNonFinite: options.allowNonFinite === true, threads });
      return new Model(spec, path, device, threads, backend, weights);
    } catch (err) {
      backend.dispose();
      throw err;
    }
  }

  get weights(): Weights {
    if (!this.#weights) throw new GraphError('the model was disposed', 'DISPOSED');
    return this.#weights;
  }

  /** A context: one stream of work with its own backend (thread pool) and graph cache. */
  createContext(options: EncoderContextOptions = {}): EncoderContext {
    if (options.device !== undefined && resolveDevice(options.device) !== this.device)
      throw new GraphError(`the model lives on ${this.device}; a context on ${resolveDevice(options.device)} is refused`, 'DEVICE_MISMATCH');
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

  /** Whether dispose() was called: a context's calls that start after it are refused (DISPOSED). */
  get disposed(): boolean {
    return this.#weights === undefined;
  }

  /**
   * Releases the model's handles; memory in use by a running compute is freed when it finishes, and
   * its contexts' later calls are refused.
   */
  dispose(): void {
    this.#weights?.dispose();
    this.#backend?.dispose();
    this.#weights = undefined;
    this.#backend = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
