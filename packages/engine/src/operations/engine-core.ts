// The parts of the engine an operation uses. Operations depend on this, not on the Engine class.
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
  model(id: unknown): Promise<ModelSlot>;
  /** Runs `work` holding the named model (loaded first if it is not): no unload or eviction until it settles. */
  withModel<T>(id: unknown, work: (slot: ModelSlot) => Promise<T>): Promise<T>;
  scoped<T>(items: number, call: CallOptions, work: (scope: RequestScope) => Promise<T>): Promise<T>;
}

/** What a request computed: its items and their tokens. */
export interface Usage {
  items: number;
  tokens: number;
}

export function usage(outs: readonly { nTokens: number }[]): Usage {
  return { items: outs.length, tokens: outs.reduce((n, o) => n + o.nTokens, 0) };
}
