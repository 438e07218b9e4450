// The parts of the engine an operation uses. Operations depend on this, not on the Engine class.
import type { ItemLoader } from '../items/item-loader.js';
import type { ComputeLane } from '../queue/compute-lane.js';
import type { EngineMetrics } from '../queue/engine-metrics.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';

/** How one call runs: the caller's abort (a client that went away) and its own deadline. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Default: the engine's timeoutMs. */
  timeoutMs?: number | undefined;
}

export interface EngineCore {
  readonly lane: ComputeLane;
  readonly metrics: EngineMetrics;
  readonly loader: ItemLoader;
  /** The most items (windows included) one request may hold. */
  readonly maxQueue: number;
  model(id: unknown): Promise<ModelSlot>;
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
