// What a context needs of its model: the spec, the weights, where they live, and a place to register
// itself so that disposing the model disposes it. Contexts depend on this, not on the Model class.
import type { ModelSpec } from '@jepa/gguf';
import type { RuntimeOptions } from './runtime-options.js';
import type { Weights } from './weights.js';

/** Something a model disposes with itself: a context, a world model over it. */
export interface ModelOwned {
  /** Resolves once its running work has finished and its handles are released; a second call is harmless. */
  dispose(): Promise<void>;
}

export interface ModelHandle {
  readonly spec: ModelSpec;
  /** Throws GraphError DISPOSED once the model has released them. */
  readonly weights: Weights;
  readonly device: string;
  readonly threads: number;
  /** The run-time switches the model was loaded under. */
  readonly runtime: RuntimeOptions;
  /** Where the model's parts report what the caller may want to know (a fallback taken), one line each. */
  readonly notice: (message: string) => void;
  /** Whether dispose() was called: calls that start after it are refused (DISPOSED). */
  readonly disposed: boolean;
  /** Records `owned`, disposed with the model; refused (DISPOSED) on a disposed model. */
  track(owned: ModelOwned): void;
  /** Forgets `owned` (it was disposed on its own). */
  untrack(owned: ModelOwned): void;
}
