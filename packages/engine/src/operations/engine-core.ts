// The parts of the engine an operation uses. Operations depend on this, not on the Engine class, and
// only they see it: a front end passes the model id to an operation and never holds a model itself.
import type { ModelSpec } from '@jepa/gguf';
import type { ItemLoader } from '../items/item-loader.js';
import type { ComputeLane } from '../queue/compute-lane.js';
import type { EngineMetrics } from '../queue/engine-metrics.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';

/** How one call runs: the caller's abort (a client that went away) and its own deadline. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** This call's deadline: it may shorten the engine's timeoutMs (the default), not lengthen it. */
  timeoutMs?: number | undefined;
}

export interface EngineCore {
  readonly lane: ComputeLane;
  readonly metrics: EngineMetrics;
  readonly loader: ItemLoader;
  /** The most items (windows included) one request may hold. */
  readonly maxQueue: number;
  /**
   * The named model's id, file and spec, from its header and without loading it (the only model when
   * `id` is undefined): what an operation checks a request against before the model loads.
   */
  header(id: unknown): Promise<ModelHeader>;
  /** Runs `work` holding the named model (loaded first if it is not): no unload or eviction until it settles. */
  withModel<T>(id: unknown, work: (slot: ModelSlot) => Promise<T>): Promise<T>;
  scoped<T>(items: number, call: CallOptions, work: (scope: RequestScope) => Promise<T>): Promise<T>;
}

/** A served model as its file's header describes it. */
export interface ModelHeader {
  id: string;
  path: string;
  spec: ModelSpec;
}

/** What a request computed: its items and their tokens. */
export interface Usage {
  items: number;
  tokens: number;
}

export function usage(outs: readonly { nTokens: number }[]): Usage {
  return { items: outs.length, tokens: outs.reduce((n, o) => n + o.nTokens, 0) };
}
