// `jepa queue add`: the inputs become a list in Redis and one job per batch of them.
import type { Redis } from 'ioredis';
import { CorpusError } from '../errors.js';
import { inputsKey, jobIdOf, metaKey, openQueue, readMeta, type EmbedJobData } from './corpus-queue.js';

export interface AddOptions {
  /** Inputs per job (default 32). */
  batch?: number;
  /** Tries per job before it fails (default 3). */
  attempts?: number;
  /** The first retry's delay; each later one doubles it (default 1000 ms). */
  backoffMs?: number;
}

export async function addCorpus(
  redis: Redis,
  name: string,
  inputs: readonly string[],
  options: AddOptions = {},
): Promise<{ jobs: number; inputs: number }> {
  const batch = options.batch ?? 32;
  if (inputs.length === 0) throw new CorpusError('queue_empty', 'nothing to add: no inputs');
  const existing = await readMeta(redis, name);
  if (existing)
    throw new CorpusError(
      'queue_exists',
      `the queue ${name} already holds ${existing.inputs} inputs; pick a new name, or \`jepa queue remove ${name}\` first`,
    );
  // The list and its size go in first and at once; the jobs refer to places in it.
  const added = await redis
    .multi()
    .del(inputsKey(name))
    .rpush(inputsKey(name), ...inputs)
    .hset(metaKey(name), { inputs: inputs.length, batch, jobs: Math.ceil(inputs.length / batch) })
    .exec();
  const failure = added?.find(([err]) => err);
  if (!added || failure)
    throw new CorpusError('queue_add', `could not store the inputs of ${name}: ${failure?.[0]?.message ?? 'the transaction was aborted'}`);
  const queue = openQueue(name, redis);
  try {
    const jobs: { name: string; data: EmbedJobData; opts: object }[] = [];
    for (let first = 0, n = 0; first < inputs.length; first += batch, n++) {
      jobs.push({
        name: 'embed',
        data: { first, inputs: inputs.slice(first, first + batch) },
        opts: {
          jobId: jobIdOf(n),
          attempts: options.attempts ?? 3,
          backoff: { type: 'exponential', delay: options.backoffMs ?? 1000 },
          removeOnComplete: false,
          removeOnFail: false,
        },
      });
    }
    for (let i = 0; i < jobs.length; i += 1000) await queue.addBulk(jobs.slice(i, i + 1000));
    return { jobs: jobs.length, inputs: inputs.length };
  } finally {
    await queue.close();
  }
}

export async function removeCorpus(redis: Redis, name: string): Promise<void> {
  const queue = openQueue(name, redis);
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
  }
  await redis.del(inputsKey(name), metaKey(name));
}
