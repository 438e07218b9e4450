// `jepa queue collect`: the shards merged in input order into one output (the embed writer's formats),
// each input exactly once, however often its job ran. A job that failed for good makes its inputs
// failures, with the job's reason.
import type { Redis } from 'ioredis';
import type { CorpusItem, CorpusRecord } from '../embed/corpus-item.js';
import { CorpusError } from '../errors.js';
import { EmbeddingWriter, type WrittenFailure } from '../output/embedding-writer.js';
import { batchInputs, inputsKey, jobIdOf, openQueue, requireMeta } from './corpus-queue.js';
import { readShard } from './shard.js';

export interface CollectResult {
  rows: number;
  failures: WrittenFailure[];
  inputs: number;
}

export async function collectCorpus(
  redis: Redis,
  name: string,
  output: string | undefined,
  options: { stdout?: (text: string) => void } = {},
): Promise<CollectResult> {
  let writer: EmbeddingWriter | undefined;
  let inputs = 0;
  try {
    for await (const { items, records } of collectRecords(redis, name)) {
      writer ??= EmbeddingWriter.open(output, items, { stdout: options.stdout });
      inputs = items.length;
      writer.write(records);
    }
    writer?.finish();
  } finally {
    writer?.close();
  }
  return { rows: writer?.rows ?? 0, failures: writer?.failures ?? [], inputs };
}

/**
 * A finished queue's records, a job at a time in input order (each input exactly once; the inputs of a
 * job that failed for good as failures), with the corpus's items; refused while jobs are unfinished.
 */
export async function* collectRecords(redis: Redis, name: string): AsyncGenerator<{ items: CorpusItem[]; records: CorpusRecord[] }> {
  const meta = await requireMeta(redis, name);
  const queue = openQueue(name, redis);
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    const unfinished = Object.values(counts).reduce((a, b) => a + b, 0);
    if (unfinished > 0)
      throw new CorpusError(
        'queue_unfinished',
        `the queue ${name} is not finished: ${describeCounts(counts)}; wait for it (jepa queue status ${name} --watch), then collect`,
      );
    const items = await corpusItems(redis, name, meta.inputs);
    for (let job = 0; job < meta.jobs; job++) {
      const first = job * meta.batch;
      yield { items, records: await jobRecords(queue, redis, name, job, items.slice(first, first + meta.batch), meta) };
    }
  } finally {
    await queue.close();
  }
}

function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
}

async function corpusItems(redis: Redis, name: string, count: number): Promise<CorpusItem[]> {
  const items: CorpusItem[] = [];
  for (let start = 0; start < count; start += 10_000) {
    for (const label of await redis.lrange(inputsKey(name), start, Math.min(count, start + 10_000) - 1))
      items.push({ label, still: true, load: () => Promise.reject(new Error('collect does not load inputs')) });
  }
  if (items.length !== count) throw new CorpusError('queue_corrupt', `the queue ${name} lists ${items.length} inputs but says it has ${count}`);
  return items;
}

async function jobRecords(
  queue: ReturnType<typeof openQueue>,
  redis: Redis,
  name: string,
  job: number,
  items: CorpusItem[],
  meta: Awaited<ReturnType<typeof requireMeta>>,
): Promise<CorpusRecord[]> {
  const id = jobIdOf(job);
  const found = await queue.getJob(id);
  const state = found ? await found.getState() : 'missing';
  if (!found || state !== 'completed') {
    const reason = found?.failedReason
      ? `its job ${id} failed after ${found.attemptsMade} attempts: ${found.failedReason}`
      : `its job ${id} is ${state}`;
    return items.map((item) => ({ item, error: reason }));
  }
  const { records } = readShard(found.returnvalue.shard);
  const expected = await batchInputs(redis, name, meta, job);
  if (records.length !== items.length || records.some((r, i) => r.input !== expected[i]))
    throw new CorpusError('shard_mismatch', `the shard ${found.returnvalue.shard} does not hold the inputs of ${id}`);
  return records.map(
    (r, i): CorpusRecord => (r.error !== undefined ? { item: items[i]!, error: r.error } : { item: items[i]!, values: r.values!, shape: r.shape! }),
  );
}
