/** One input as the prefetcher hands it over: its value, or why it could not be loaded. */
export type Prefetched<T, R> = { index: number; item: T; ok: true; value: R } | { index: number; item: T; ok: false; error: unknown };

/**
 * Loads items ahead of their consumer and yields them in input order. At most `depth` items are
 * loading or loaded-but-unconsumed at once, so memory stays flat however long the list is; a slot
 * frees only when the consumer takes an item. A failed load is yielded as an error, never thrown.
 */
export async function* prefetchInOrder<T, R>(
  items: Iterable<T>,
  load: (item: T, index: number) => Promise<R>,
  depth: number,
): AsyncGenerator<Prefetched<T, R>> {
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`prefetch depth must be a positive integer, got ${depth}`);
  const source = items[Symbol.iterator]();
  const window: Promise<Prefetched<T, R>>[] = [];
  let next = 0;
  const start = (): boolean => {
    const step = source.next();
    if (step.done) return false;
    const index = next++;
    const item = step.value;
    window.push(
      Promise.resolve()
        .then(() => load(item, index))
        .then(
          (value): Prefetched<T, R> => ({ index, item, ok: true, value }),
          (error: unknown): Prefetched<T, R> => ({ index, item, ok: false, error }),
        ),
    );
    return true;
  };
  while (window.length < depth && start());
  try {
    while (window.length > 0) {
      yield await window.shift()!;
      start();
    }
  } finally {
    // A consumer that stops early must not leave loads to fail unobserved.
    await Promise.allSettled(window);
  }
}

/** A counting semaphore: bounds how many heavy steps (full-size decodes) run at once. */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be a positive integer, got ${size}`);
    this.#free = size;
  }

  async run<R>(task: () => Promise<R>): Promise<R> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((wake) => this.#waiting.push(wake));
    try {
      return await task();
    } finally {
      const wake = this.#waiting.shift();
      if (wake) wake();
      else this.#free++;
    }
  }
}
