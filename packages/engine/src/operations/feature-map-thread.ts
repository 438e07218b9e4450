// One worker thread for the feature maps of the process (the PCA of a large grid, its upsampling and
// PNGs), started on the first job and held only while jobs are pending: an idle worker keeps no
// process alive. Jobs run in order of arrival; a worker that dies fails its jobs and the next job
// starts a new one.
import { Worker } from 'node:worker_threads';
import type { FeatureMap, FeatureMapJob } from './feature-map-render.js';

interface Pending {
  done: (map: FeatureMap) => void;
  fail: (err: Error) => void;
}

type Reply = { id: number; map: FeatureMap } | { id: number; error: string };

class MapWorker {
  #worker: Worker | null = null;
  #next = 0;
  readonly #pending = new Map<number, Pending>();

  /** `transfer`: hand the job's two arrays over to the worker (detaching them here) instead of copying them. */
  render(job: FeatureMapJob, transfer = false): Promise<FeatureMap> {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise<FeatureMap>((done, fail) => {
      this.#pending.set(id, { done, fail });
      worker.ref();
      worker.postMessage({ id, job }, transfer ? [job.tokens.buffer as ArrayBuffer, job.data.buffer as ArrayBuffer] : []);
    });
  }

  /** Jobs waiting or running on the worker. */
  get pending(): number {
    return this.#pending.size;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./feature-map-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if ('error' in reply) p.fail(new Error(reply.error));
      else p.done({ ...reply.map, png: asBuffer(reply.map.png), view: asBuffer(reply.map.view) });
    });
    const lost = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      for (const p of this.#pending.values()) p.fail(err);
      this.#pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the feature-map worker exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}

/** A Buffer posted from a worker arrives as a plain Uint8Array. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export const mapWorker = new MapWorker();
