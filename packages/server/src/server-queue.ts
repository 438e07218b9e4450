// The bounded queue and the dynamic batcher. Admission counts items from the moment a request is
// accepted until each is done, and refuses (429) past --max-queue. One compute lane runs every
// graph of every model in turn (one stream of work is what the CPU threads can serve). Each model's
// batcher groups still images of one shape from concurrent requests into one encoder graph, up to
// --max-batch items or --max-wait-ms after the oldest arrived; clips run one per graph, except the
// windows of a sampled video, which batch by shape as stills do.
import { EncodeOutput, type EncoderContext } from '@jepa/graph';
import type { ItemTensor } from '@jepa/input';
import { ApiError, inputFailure } from './errors.js';
import type { ServerMetrics } from './metrics.js';

export type DropReason = 'disconnect' | 'deadline' | 'failed' | 'shutdown';

/** The reason an item never ran; nobody reads it but a request that is already gone. */
export class Dropped extends Error {
  constructor(readonly reason: DropReason) {
    super(`dropped: ${reason}`);
    this.name = 'Dropped';
  }
}

export function dropReason(signal: AbortSignal): DropReason {
  const r = signal.reason as unknown;
  return r === 'disconnect' || r === 'deadline' || r === 'failed' || r === 'shutdown' ? r : 'failed';
}

/** Rejects once the signal fires for a reason other than a failed item (that one's own error wins). */
export function rejectOnDrop(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    const fire = () => {
      const reason = dropReason(signal);
      if (reason !== 'failed') reject(new Dropped(reason));
    };
    if (signal.aborted) fire();
    else signal.addEventListener('abort', fire, { once: true });
  });
}

/** Compute on items already checked: an engine refusal is the caller's (field named), anything else internal. */
export async function computeOnItems<T>(field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Dropped) throw err;
    if (err instanceof Error && /\b(target|context) token id\b/.test(err.message))
      throw inputFailure(/\btarget token id\b/.test(err.message) ? 'target' : 'context', err);
    throw inputFailure(field, err);
  }
}

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
  readonly #metrics: ServerMetrics;
  readonly #secondsPerItem: () => number;

  constructor(
    readonly capacity: number,
    metrics: ServerMetrics,
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
      throw new ApiError(
        429,
        'rate_limit_error',
        'queue_full',
        `the queue is full (${this.#depth} of ${this.capacity} items, --max-queue); retry after ${wait} s`,
        null,
        { 'retry-after': String(wait) },
      );
    }
    this.#depth += items;
    this.#metrics.queueDepth.set(this.#depth);
    return new Ticket(items, (n) => {
      this.#depth -= n;
      this.#metrics.queueDepth.set(this.#depth);
    });
  }
}

/** A FIFO mutex around compute, which also learns how long an item takes (for Retry-After). */
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

interface EncodeJob {
  tensor: ItemTensor;
  key: string | null;
  enqueued: number;
  signal: AbortSignal;
  onAbort: () => void;
  resolve: (out: EncodeOutput) => void;
  reject: (err: unknown) => void;
}

export interface BatcherOptions {
  maxBatch: number;
  maxWaitMs: number;
}

export class Batcher {
  readonly #pending: EncodeJob[] = [];
  #running = false;
  #wake: (() => void) | null = null;
  #incoming = 0;
  readonly #encoder: EncoderContext;
  readonly #lane: ComputeLane;
  readonly #metrics: ServerMetrics;
  readonly #options: BatcherOptions;

  constructor(encoder: EncoderContext, lane: ComputeLane, metrics: ServerMetrics, options: BatcherOptions) {
    this.#encoder = encoder;
    this.#lane = lane;
    this.#metrics = metrics;
    this.#options = options;
  }

  get pending(): number {
    return this.#pending.length;
  }

  /**
   * Says an image for this model is being decoded; the returned function says it is done (queued or
   * failed). A graph that is not full waits a little for such images.
   */
  announce(): () => void {
    this.#incoming++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#incoming--;
      this.#wake?.();
    };
  }

  /** One item's encoder output (a batch of one); `still` items may share a graph with others. */
  encode(tensor: ItemTensor, still: boolean, signal: AbortSignal): Promise<EncodeOutput> {
    if (signal.aborted) return Promise.reject(new Dropped(dropReason(signal)));
    return new Promise<EncodeOutput>((resolve, reject) => {
      const job: EncodeJob = {
        tensor,
        key: still ? tensor.shape.join('x') : null,
        enqueued: performance.now(),
        signal,
        resolve,
        reject,
        onAbort: () => {
          const at = this.#pending.indexOf(job);
          if (at < 0) return;
          this.#pending.splice(at, 1);
          reject(new Dropped(dropReason(signal)));
          this.#wake?.();
        },
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.#pending.push(job);
      this.#wake?.();
      if (!this.#running) {
        this.#running = true;
        void this.#loop();
      }
    });
  }

  async #loop(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const first = this.#pending[0]!;
        if (first.key !== null && this.#options.maxBatch > 1) {
          while (this.#pending[0] === first) {
            const have = this.#compatible(first.key);
            if (have >= this.#options.maxBatch) break;
            // Images still decoding are about to arrive: worth waiting for as long as the graph at
            // hand would take to run, since they would otherwise wait for it anyway.
            const patience =
              this.#incoming > 0 ? Math.max(this.#options.maxWaitMs, have * this.#lane.secondsPerItem * 1000) : this.#options.maxWaitMs;
            const until = first.enqueued + patience;
            if (performance.now() >= until) break;
            await this.#nap(until);
          }
          if (this.#pending[0] !== first) continue;
        }
        await this.#lane.run(() => this.#runBatch());
      }
    } finally {
      this.#running = false;
    }
  }

  #compatible(key: string): number {
    let n = 0;
    for (const j of this.#pending) if (j.key === key) n++;
    return n;
  }

  /** Until `until`, or sooner when an item arrives or leaves. */
  #nap(until: number): Promise<void> {
    return new Promise<void>((done) => {
      const timer = setTimeout(finish, Math.max(0, until - performance.now()));
      function finish() {
        clearTimeout(timer);
        done();
      }
      this.#wake = () => {
        this.#wake = null;
        finish();
      };
    });
  }

  /** Takes the head of the queue and, if it is a still, every same-shape still behind it up to max-batch. */
  #take(): EncodeJob[] {
    const first = this.#pending[0];
    if (!first) return [];
    const batch: EncodeJob[] = [];
    if (first.key === null) batch.push(this.#pending.shift()!);
    else {
      for (let i = 0; i < this.#pending.length && batch.length < this.#options.maxBatch; ) {
        const j = this.#pending[i]!;
        if (j.key === first.key) {
          batch.push(j);
          this.#pending.splice(i, 1);
        } else i++;
      }
    }
    for (const j of batch) j.signal.removeEventListener('abort', j.onAbort);
    return batch;
  }

  async #runBatch(): Promise<void> {
    const batch = this.#take();
    if (batch.length === 0) return;
    const t0 = performance.now();
    for (const j of batch) this.#metrics.queueWaitSeconds.observe((t0 - j.enqueued) / 1000);
    this.#metrics.batchSize.observe(batch.length);
    const shape = batch[0]!.tensor.shape;
    let data = batch[0]!.tensor.data;
    if (batch.length > 1) {
      const size = data.length;
      data = new Float32Array(batch.length * size);
      for (const [i, j] of batch.entries()) data.set(j.tensor.data, i * size);
    }
    try {
      const out = await this.#encoder.encode({ data, shape: [batch.length, ...shape] });
      this.#lane.observe((performance.now() - t0) / 1000, batch.length);
      for (const [i, j] of batch.entries()) j.resolve(new EncodeOutput(out.item(i), 1, out.nTokens, out.dim, out.prefix, out.nCls));
    } catch (err) {
      for (const j of batch) j.reject(err);
    }
  }
}
