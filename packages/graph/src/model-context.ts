// What every context over a model shares: its graph runner (one backend, graphs cached by shape,
// calls one after another), registered with the model so that disposing the model disposes it.
import { GraphRunner, type BuiltGraph } from './graph-runner.js';
import type { ModelHandle, ModelOwned } from './model-handle.js';

export abstract class ModelContext<G extends BuiltGraph> implements ModelOwned, AsyncDisposable {
  protected readonly model: ModelHandle;
  protected readonly runner: GraphRunner<G>;

  /** Refused (DISPOSED) on a disposed model. */
  protected constructor(model: ModelHandle, threads: number | undefined) {
    model.track(this);
    this.model = model;
    this.runner = new GraphRunner(model, threads);
  }

  /** Whether dispose() (its own or its model's) was called: later calls are refused (DISPOSED). */
  get disposed(): boolean {
    return this.runner.disposed;
  }

  /** Bytes of the compute buffer this context's graphs take turns in: its largest graph's, not their sum. */
  get computeBytes(): number {
    return this.runner.backend.sharedComputeBytes;
  }

  /** Refuses calls that have not started, waits for the running one, then frees the graphs and the backend. */
  dispose(): Promise<void> {
    this.model.untrack(this);
    return this.runner.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
