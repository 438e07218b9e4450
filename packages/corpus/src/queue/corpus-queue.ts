// A named corpus in Redis: BullMQ jobs, one per batch of inputs, plus the list of inputs in order,
// which `collect` follows. Job ids are the batch numbers, so adding the same batch twice is a no-op
// and a re-delivered job overwrites its own shard.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { CorpusError } from '../errors.js';

export interface EmbedJobData {
  /** The place of the job's first input in the corpus. */
  first: number;
  inputs: string[];
}

/** What a worker returns for a job: where its shard is and what it holds. */
export interface EmbedJobResult {
  shard: string;
  rows: number;
  failed: number;
  seconds: number;
}

export interface CorpusMeta {
  inputs: number;
  batch: number;
  jobs: number;
}

const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export function checkQueueName(name: string): string {
  if (!QUEUE_NAME.test(name))
    throw new CorpusError(
      'queue_name',
      `queue name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-' (at most 100, starting with a letter or digit)`,
    );
  return name;
}

export function jobIdOf(batch: number): string {
  return `batch-${String(batch).padStart(6, '0')}`;
}

export const inputsKey = (name: string) => `jepa:corpus:${name}:inputs`;
export const metaKey = (name: string) => `jepa:corpus:${name}:meta`;

export function openQueue(name: string, connection: Redis): Queue<EmbedJobData, EmbedJobResult> {
  return new Queue<EmbedJobData, EmbedJobResult>(checkQueueName(name), { connection });
}

export async function readMeta(redis: Redis, name: string): Promise<CorpusMeta | null> {
  const meta = await redis.hgetall(metaKey(name));
  if (!meta.inputs) return null;
  return { inputs: Number(meta.inputs), batch: Number(meta.batch), jobs: Number(meta.jobs) };
}

export async function requireMeta(redis: Redis, name: string): Promise<CorpusMeta> {
  const meta = await readMeta(redis, name);
  if (!meta) throw new CorpusError('queue_unknown', `there is no queue named ${name} in this Redis (jepa queue add ${name} … makes one)`);
  return meta;
}

/** The inputs of batch `job`, read from the corpus list (not from the job, which may be gone). */
export async function batchInputs(redis: Redis, name: string, meta: CorpusMeta, job: number): Promise<string[]> {
  const first = job * meta.batch;
  return redis.lrange(inputsKey(name), first, Math.min(meta.inputs, first + meta.batch) - 1);
}
