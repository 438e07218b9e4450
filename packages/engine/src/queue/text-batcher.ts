// The dynamic batcher of one model's text tower: the texts of concurrent requests share one text graph,
// up to maxBatch texts or maxWaitMs after the oldest arrived, on the compute lane, as stills share an
// encoder graph in Batcher. A request's texts stay together; one with more than maxBatch runs alone.
import type { Vector } from '@jepa/session';
import type { ComputeLane } from './compute-lane.js';
import { Dropped, dropReason } from './dropped.js';
import { Nap } from './nap.js';

interface TextJob {
  texts: readonly string[];
  enqueued: number;
  signal: AbortSignal;
  onAbort: () => void;
  resolve: (vectors: Vector[]) => void;
  reject: (err: unknown) => void;
}

export interface TextBatcherOptions {
  maxBatch: number;
  maxWaitMs: number;
}

export class TextBatcher {
  readonly #pending: TextJob[] = [];
  #running = false;
  readonly #nap = new Nap();

  /** `embed`: the session's texts to vectors (unnormalised), in order. */
  constructor(
    private readonly embedTexts: (texts: readonly string[]) => Promise<Vector[]>,
    private readonly lane: ComputeLane,
    private readonly options: TextBatcherOptions,
  ) {}

  /** The texts' vectors, in order, from a graph they may share with other requests' texts. */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Vector[]> {
    if (signal.aborted) return Promise.reject(new Dropped(dropReason(signal)));
    return new Promise<Vector[]>((resolve, reject) => {
      const job: TextJob = {
        texts,
        enqueued: performance.now(),
        signal,
        resolve,
        reject,
        onAbort: () => {
          const at = this.#pending.indexOf(job);
          if (at < 0) return;
          this.#pending.splice(at, 1);
          reject(new Dropped(dropReason(signal)));
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

  #queuedTexts(): number {
    return this.#pending.reduce((n, j) => n + j.texts.length, 0);
  }

  async #loop(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const first = this.#pending[0]!;
        while (this.#pending[0] === first && this.#queuedTexts() < this.options.maxBatch) {
          const until = first.enqueued + this.options.maxWaitMs;
          if (performance.now() >= until) break;
          await this.#nap.until(until);
        }
        if (this.#pending.length === 0) continue;
        await this.lane.run(() => this.#runBatch());
      }
    } finally {
      this.#running = false;
    }
  }

  /** The oldest request, and the ones behind it while their texts fit in maxBatch. */
  #take(): TextJob[] {
    const batch = [this.#pending.shift()!];
    let n = batch[0]!.texts.length;
    while (this.#pending.length > 0 && n + this.#pending[0]!.texts.length <= this.options.maxBatch) {
      const j = this.#pending.shift()!;
      n += j.texts.length;
      batch.push(j);
    }
    for (const j of batch) j.signal.removeEventListener('abort', j.onAbort);
    return batch;
  }

  async #runBatch(): Promise<void> {
    const batch = this.#take();
    try {
      const vectors = await this.embedTexts(batch.flatMap((j) => j.texts));
      let at = 0;
      for (const j of batch) {
        j.resolve(vectors.slice(at, at + j.texts.length));
        at += j.texts.length;
      }
    } catch (err) {
      for (const j of batch) j.reject(err);
    }
  }
}
