// What the engine reports as it works; a front end that exports metrics (the server's Prometheus
// registry) implements it, the others take the silent default.
import type { DropReason } from './dropped.js';

export interface EngineMetrics {
  /** Items admitted and not yet done (decoding, waiting or running). */
  queueDepth(items: number): void;
  /** How long an item waited before its graph ran. */
  queueWait(seconds: number): void;
  /** Items in one encoder graph. */
  batchSize(items: number): void;
  droppedItem(reason: DropReason): void;
  /** A graph stopped between two nodes because every request in it was past its deadline. */
  graphStopped(): void;
  /** A request's texts: how many needed no run of the text tower (in the model's text cache, or repeated in the request), how many ran it. */
  textVectors(cached: number, computed: number): void;
  /** Items an operation computed, once it answered. */
  itemsDone(operation: Operation, items: number): void;
  /** A model's load: how long it took and the bytes its weights hold. */
  modelLoaded(id: string, seconds: number, bytes: number): void;
  modelUnloaded(id: string, reason: UnloadReason): void;
}

/** Why a model left memory: idle past its keep-alive, evicted for another's load, asked to, or a shutdown. */
export type UnloadReason = 'idle' | 'evicted' | 'request' | 'shutdown';

export type Operation = 'embed' | 'features' | 'classify' | 'predict' | 'rollout' | 'plan';

export const SILENT_METRICS: EngineMetrics = {
  queueDepth() {},
  queueWait() {},
  batchSize() {},
  droppedItem() {},
  graphStopped() {},
  textVectors() {},
  itemsDone() {},
  modelLoaded() {},
  modelUnloaded() {},
};
