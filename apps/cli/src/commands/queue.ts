// `jepa queue add | status | collect | remove`: a corpus as jobs on BullMQ over Redis (docs/corpus.md).
import { resolve } from 'node:path';
import type { Command } from 'commander';

import {
  addCorpus,
  collectCorpus,
  collectRecords,
  connectOnce,
  isFinished,
  queueStatus,
  redisUrl,
  removeCorpus,
  type QueueStatus,
  type Redis,
} from '@jepa/corpus';
import { expandInputs } from '../inputs.js';
import { checkOutputWritable } from '../output.js';
import { positiveInt } from '../runtime-options.js';
import { UserError } from '../user-error.js';
import { displayText, say } from '../display-text.js';
import type { Pool } from '@jepa/engine';
import { poolOption } from '../pool-option.js';
import { collectIntoIndex } from './index-collect.js';
import { indexedModel } from './index-embed.js';

async function withRedis<T>(flag: string | undefined, run: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectOnce(redisUrl(flag));
  try {
    return await run(redis);
  } finally {
    redis.disconnect();
  }
}

export function queueCommand(program: Command): void {
  const queue = program.command('queue').description('embed a corpus with workers on other processes or machines (BullMQ on Redis)');
  const redisHelp = 'the Redis server (default JEPA_REDIS_URL or redis://127.0.0.1:6379)';

  queue
    .command('add')
    .description('add a corpus: one job per batch of inputs; the inputs must be paths every worker can read')
    .argument('<name>', 'the queue')
    .argument('<inputs...>', 'image files, clips, folders, globs or @list.txt files')
    .option('--batch <n>', 'inputs per job', positiveInt, 32)
    .option('--attempts <n>', 'tries per job before it fails', positiveInt, 3)
    .option('--backoff <ms>', 'the first retry waits this long, each later one twice as long', positiveInt, 1000)
    .option('--redis <url>', redisHelp)
    .action(async (name: string, inputs: string[], flags: { batch: number; attempts: number; backoff: number; redis?: string }) => {
      const paths = expandInputs(inputs).map((p) => resolve(p));
      const added = await withRedis(flags.redis, (redis) =>
        addCorpus(redis, name, paths, { batch: flags.batch, attempts: flags.attempts, backoffMs: flags.backoff }),
      );
      say(
        `queue ${name}: ${added.inputs} inputs in ${added.jobs} jobs of up to ${flags.batch}; start workers with: jepa worker ${name} -m MODEL --out DIR`,
      );
    });

  queue
    .command('status')
    .description('the job counts (waiting, active, completed, failed, delayed) and the progress')
    .argument('<name>', 'the queue')
    .option('--watch', 'refresh every second until every job has completed or failed')
    .option('--json', 'print {waiting, active, completed, failed, delayed, jobs, inputs} as JSON')
    .option('--redis <url>', redisHelp)
    .action(async (name: string, flags: { watch?: boolean; json?: boolean; redis?: string }) => {
      await withRedis(flags.redis, async (redis) => {
        for (;;) {
          const status = await queueStatus(redis, name);
          if (flags.json) process.stdout.write(`${JSON.stringify(status)}\n`);
          else
            process.stderr.write(
              `${process.stderr.isTTY && flags.watch ? '\r' : ''}${displayText(statusLine(name, status))}${process.stderr.isTTY && flags.watch ? '' : '\n'}`,
            );
          if (!flags.watch || isFinished(status)) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
        if (flags.watch && process.stderr.isTTY && !flags.json) process.stderr.write('\n');
      });
    });

  queue
    .command('collect')
    .description("merge the workers' shards in input order into one output, each input exactly once")
    .argument('<name>', 'the queue')
    .option('-o, --output <file>', 'write .npy, .json or .jsonl (default: JSON lines on stdout)')
    .option('--index <dir>', 'fill this index (jepa search) instead: new and changed files only, a transaction per job')
    .option('-m, --model <gguf>', "with --index: the workers' model (its identity goes in the index)")
    .addOption(poolOption())
    .option('--redis <url>', redisHelp)
    .action(async (name: string, flags: { output?: string; redis?: string; index?: string; model?: string; pool?: Pool }) => {
      if (flags.index !== undefined) {
        if (flags.output !== undefined) throw new UserError('give -o or --index, not both');
        if (flags.model === undefined) throw new UserError("--index needs -m MODEL: the workers' model, whose identity the index keeps");
        const index = flags.index;
        const model = flags.model;
        const r = await withRedis(flags.redis, (redis) => collectIntoIndex(collectRecords(redis, name), index, indexedModel(model, flags.pool)));
        for (const f of r.failures) say(`${f.path}: ${f.error}`);
        say(`${r.added} files added to ${index} (${r.unchanged} unchanged); the index holds ${r.rows} rows`);
        if (r.failures.length > 0) throw new UserError(`${r.failures.length} of ${r.inputs} inputs failed`, 3);
        return;
      }
      checkOutputWritable(flags.output);
      const result = await withRedis(flags.redis, (redis) => collectCorpus(redis, name, flags.output));
      for (const f of result.failures) say(`${f.input}: ${f.error}`);
      say(`${result.rows} of ${result.inputs} inputs collected${flags.output ? ` -> ${flags.output}` : ''}`);
      if (result.failures.length > 0) throw new UserError(`${result.failures.length} of ${result.inputs} inputs failed`, 3);
    });

  queue
    .command('remove')
    .description('delete a queue, its jobs and its list of inputs from Redis (the shards stay)')
    .argument('<name>', 'the queue')
    .option('--redis <url>', redisHelp)
    .action(async (name: string, flags: { redis?: string }) => {
      await withRedis(flags.redis, (redis) => removeCorpus(redis, name));
      say(`queue ${name} removed`);
    });
}

function statusLine(name: string, s: QueueStatus): string {
  const done = s.completed + s.failed;
  const width = 28;
  const filled = Math.round((width * done) / Math.max(1, s.jobs));
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${s.jobs} jobs`;
  return `${name} ${bar}  waiting ${s.waiting}  active ${s.active}  completed ${s.completed}  failed ${s.failed}  delayed ${s.delayed}`;
}
