// The bounded queue: items count from the moment a request is admitted until each is done, and a
// request past the capacity is refused as busy, with a wait learned from the compute lane.
import { EngineError } from '../errors.js';
import type { EngineMetrics } from './engine-metrics.js';

/** Items a request holds in the queue; each is given back once. */
export class Ticket {
  #held: number;
  readonly #giveBack: (n: number) => void;

  constructor(held: number, giveBack: (n: number) => void) {
    this.#held = held;
    this.#giveBack = giveBack;
  }

  release(n = 1): void {
    const k = Math.min(n, this.#held);
    if (k <= 0) return;
    this.#held -= k;
    this.#giveBack(k);
  }

  releaseAll(): void {
    this.release(this.#held);
  }
}

export class Admission {
  #depth = 0;
  readonly #metrics: EngineMetrics;
  readonly #secondsPerItem: () => number;

  constructor(
    readonly capacity: number,
    metrics: EngineMetrics,
    secondsPerItem: () => number,
  ) {
    this.#metrics = metrics;
    this.#secondsPerItem = secondsPerItem;
  }

  get depth(): number {
    return this.#depth;
  }

  reserve(items: number): Ticket {
    if (this.#depth + items > this.capacity) {
      const wait = Math.min(60, Math.max(1, Math.ceil(this.#depth * this.#secondsPerItem())));
      throw new EngineError('queue_full', `the queue is full (${this.#depth} of ${this.capacity} items, --max-queue); retry after ${wait} s`, {
        kind: 'busy',
        retryAfter: wait,
      });
    }
    this.#depth += items;
    this.#metrics.queueDepth(this.#depth);
    return new Ticket(items, (n) => {
      this.#depth -= n;
      this.#metrics.queueDepth(this.#depth);
    });
  }
}
