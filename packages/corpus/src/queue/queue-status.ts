// `jepa queue status`: BullMQ's job counts for a corpus, and how far along it is.
import type { Redis } from 'ioredis';
import { openQueue, requireMeta } from './corpus-queue.js';

export interface QueueCounts {
  waiting: number;
  active: number;
  completed: number;
  failed: number;
  delayed: number;
}

export interface QueueStatus extends QueueCounts {
  jobs: number;
  inputs: number;
}

export async function queueStatus(redis: Redis, name: string): Promise<QueueStatus> {
  const meta = await requireMeta(redis, name);
  const queue = openQueue(name, redis);
  try {
    const c = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
      delayed: c.delayed ?? 0,
      jobs: meta.jobs,
      inputs: meta.inputs,
    };
  } finally {
    await queue.close();
  }
}

export function isFinished(status: QueueStatus): boolean {
  return status.waiting + status.active + status.delayed === 0 && status.completed + status.failed >= status.jobs;
}
