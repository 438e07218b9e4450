// Redis connections for the queue. Short commands (add, status, collect) fail fast when Redis is
// unreachable; a worker keeps retrying, because Redis restarting under it is a normal event.
import { Redis } from 'ioredis';
import { CorpusError } from '../errors.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function redisUrl(flag: string | undefined): string {
  return flag ?? process.env.JEPA_REDIS_URL ?? DEFAULT_REDIS_URL;
}

/** A connection for one command: it gives up after a few seconds with a one-line error. */
export async function connectOnce(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => (attempt > 3 ? null : 250 * attempt),
  });
  redis.on('error', () => {}); // reported through connect() below
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new CorpusError('redis_unreachable', `cannot reach Redis at ${url}: ${(err as Error).message} (start redis-server, or pass --redis URL)`);
  }
  return redis;
}

/** A connection for a worker: BullMQ needs commands to wait (not fail) while Redis is away. */
export function connectForWorker(url: string, onError: (err: Error) => void): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (attempt) => Math.min(200 * attempt, 2_000) });
  redis.on('error', onError);
  return redis;
}
