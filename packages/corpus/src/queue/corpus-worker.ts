// `jepa worker`: takes embed jobs from a queue, embeds their inputs and writes each job's shard.
// Stateless: everything it needs is in the job and on the shared filesystem. A bad input fails
// alone, inside its job's shard; an error of the job itself (a write, the model) is thrown, and
// BullMQ retries the job with backoff.
import { resolve } from 'node:path';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CorpusItem, CorpusRecord } from '../embed/corpus-item.js';
import { checkQueueName, type EmbedJobData, type EmbedJobResult } from './corpus-queue.js';
import { writeShard } from './shard.js';

export interface CorpusWorkerOptions {
  queue: string;
  connection: Redis;
  /** Shards go to `<outDir>/<queue>/<jobId>.{f32,json}`. */
  outDir: string;
  /** Jobs at once (default 1); `embed` receives the slot, 0 … concurrency-1. */
  concurrency?: number;
  toItem: (input: string) => CorpusItem;
  embed: (items: CorpusItem[], slot: number) => AsyncIterable<CorpusRecord[]>;
  /** BullMQ's lock: a worker that stops renewing it for this long is presumed dead (default 30 s). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (default 30 s). */
  stalledIntervalMs?: number;
  /** Stalls a job survives before it fails (default 1). */
  maxStalledCount?: number;
  onJob?: (job: string, result: EmbedJobResult) => void;
}

export function startCorpusWorker(options: CorpusWorkerOptions): Worker<EmbedJobData, EmbedJobResult> {
  const dir = resolve(options.outDir, checkQueueName(options.queue));
  const free = Array.from({ length: options.concurrency ?? 1 }, (_, i) => i);
  const run = async (job: Job<EmbedJobData, EmbedJobResult>): Promise<EmbedJobResult> => {
    const slot = free.pop()!;
    try {
      const started = performance.now();
      const items = job.data.inputs.map(options.toItem);
      const records: CorpusRecord[] = [];
      for await (const batch of options.embed(items, slot)) records.push(...batch);
      const shard = writeShard(dir, job.id!, job.data.first, records);
      const result = {
        shard,
        rows: records.filter((r) => !('error' in r)).length,
        failed: records.filter((r) => 'error' in r).length,
        seconds: (performance.now() - started) / 1000,
      };
      options.onJob?.(job.id!, result);
      return result;
    } finally {
      free.push(slot);
    }
  };
  return new Worker<EmbedJobData, EmbedJobResult>(options.queue, run, {
    connection: options.connection,
    concurrency: options.concurrency ?? 1,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 1,
  });
}
