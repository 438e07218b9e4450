// The dynamic batcher of one encoder: still images of one shape from concurrent requests share one
// encoder graph, up to maxBatch items or maxWaitMs after the oldest arrived; clips run one per graph,
// except the windows of a sampled video, which batch by shape as stills do.
import { EncodeOutput, type EncoderContext, GraphError } from '@jepa/graph';
import type { ItemTensor } from '@jepa/input';
import type { ComputeLane } from './compute-lane.js';
import { Dropped, dropReason } from './dropped.js';
import type { EngineMetrics } from './engine-metrics.js';
import { Nap } from './nap.js';

interface EncodeJob {
  tensor: ItemTensor;
  key: string | null;
  enqueued: number;
  /** performance.now() ms past which its request no longer wants it. */
  deadline: number;
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
  readonly #nap = new Nap();
  #incoming = 0;
  readonly #encoder: EncoderContext;
  readonly #lane: ComputeLane;
  readonly #metrics: EngineMetrics;
  readonly #options: BatcherOptions;

  constructor(encoder: EncoderContext, lane: ComputeLane, metrics: EngineMetrics, options: BatcherOptions) {
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
      this.#nap.wake();
    };
  }

  /**
   * One item's encoder output (a batch of one); `still` items may share a graph with others. A graph
   * still running when the last deadline of its items passes stops between two nodes.
   */
  encode(tensor: ItemTensor, still: boolean, signal: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<EncodeOutput> {
    if (signal.aborted) return Promise.reject(new Dropped(dropReason(signal)));
    return new Promise<EncodeOutput>((resolve, reject) => {
      const job: EncodeJob = {
        tensor,
        key: still ? tensor.shape.join('x') : null,
        enqueued: performance.now(),
        deadline,
        signal,
        resolve,
        reject,
        onAbort: () => {
          const at = this.#pending.indexOf(job);
          if (at < 0) return;
          this.#pending.splice(at, 1);
          reject(new Dropped(dropReason(signal)));
          this.#nap.wake();
        },
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.#pending.push(job);
      this.#nap.wake();
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
            await this.#nap.until(until);
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
    for (const j of batch) this.#metrics.queueWait((t0 - j.enqueued) / 1000);
    this.#metrics.batchSize(batch.length);
    const shape = batch[0]!.tensor.shape;
    let data = batch[0]!.tensor.data;
    if (batch.length > 1) {
      const size = data.length;
      data = new Float32Array(batch.length * size);
      for (const [i, j] of batch.entries()) data.set(j.tensor.data, i * size);
    }
    try {
      const last = Math.max(...batch.map((j) => j.deadline));
      const timeout = Number.isFinite(last) ? { timeoutMs: Math.max(0, last - performance.now()) } : {};
      const out = await this.#encoder.encode({ data, shape: [batch.length, ...shape] }, timeout);
      this.#lane.observe((performance.now() - t0) / 1000, batch.length);
      for (const [i, j] of batch.entries()) j.resolve(new EncodeOutput(out.item(i), 1, out.nTokens, out.dim, out.prefix, out.nCls));
    } catch (err) {
      if (err instanceof GraphError && err.code === 'TIMEOUT') this.#metrics.graphStopped();
      for (const j of batch) j.reject(err);
    }
  }
}
