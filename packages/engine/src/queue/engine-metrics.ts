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
  /** Items an operation computed, once it answered. */
  itemsDone(operation: Operation, items: number): void;
  modelLoaded(id: string, seconds: number): void;
}

export type Operation = 'embed' | 'features' | 'classify' | 'predict' | 'rollout' | 'plan';

export const SILENT_METRICS: EngineMetrics = {
  queueDepth() {},
  queueWait() {},
  batchSize() {},
  droppedItem() {},
  itemsDone() {},
  modelLoaded() {},
};
