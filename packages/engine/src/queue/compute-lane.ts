// One compute lane runs every graph of every model in turn: one stream of work is what the CPU
// threads can serve.

/** A FIFO mutex around compute, which also learns how long an item takes (for a busy refusal's wait). */
export class ComputeLane {
  #tail: Promise<void> = Promise.resolve();
  #secondsPerItem = 0.05;

  get secondsPerItem(): number {
    return this.#secondsPerItem;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** Resolves once everything queued on the lane so far has finished. */
  idle(): Promise<void> {
    return this.#tail;
  }

  observe(seconds: number, items: number): void {
    if (items > 0) this.#secondsPerItem = 0.8 * this.#secondsPerItem + 0.2 * (seconds / items);
  }
}
