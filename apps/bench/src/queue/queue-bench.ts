// jepa embed against the same corpus through the queue, as users run them: one `jepa embed` with
// T threads, then W workers with T/W threads each (`jepa queue add`, the workers, `jepa queue
// collect`), alternating over rounds; and the queue's overhead per job at several batch sizes.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connectOnce, isFinished, queueStatus, readShard, type Redis } from '@jepa/corpus';
import { Queue } from 'bullmq';
import { ensureManySmall } from '../pipeline/photo-sets.js';
import { runJepaEmbed } from '../pipeline/jepa-side.js';
import { peerModel } from '../peers/peers-bench.js';
import { median } from '../stats.js';
import { jepa, startWorker, type WorkerProcess } from './cli-process.js';
import { cmpSync } from './compare-files.js';

export interface QueueBenchOptions {
  images: number;
  threads: number;
  workers: number;
  batch: number;
  rounds: number;
  overheadBatches: number[];
  overheadImages: number;
  /** Corpus sizes for the memory rows: jepa embed --pool none (every token, 605 KB an image at ViT-B/16). */
  memoryImages: number[];
  type: string;
  dir: string;
  peersDir: string;
}

export interface ThroughputRound {
  embedItemsPerSecond: number;
  embedWallS: number;
  queueItemsPerSecond: number;
  queueWallS: number;
  identical: boolean;
}

export interface OverheadRow {
  batch: number;
  jobs: number;
  /** From the first job's start to the last job's end, as BullMQ recorded them. */
  spanS: number;
  /** The sum of the time the worker spent inside the jobs (decode, encode, shard). */
  inJobsS: number;
  overheadMsPerJob: number;
  /** The same inputs through `jepa embed --batch B` in the same worker thread count, items/s. */
  embedItemsPerSecond: number;
  /** Redis's CPU time (user + sys) from add to the last completion, per job: what bounds jobs/s on one Redis. */
  redisCpuMsPerJob: number;
}

export interface QueueReport {
  model: string;
  images: number;
  threads: number;
  workers: number;
  batch: number;
  rounds: ThroughputRound[];
  medianRatio: number;
  overhead: OverheadRow[];
  memory: { images: number; outputMiB: number; maxRssMiB: number }[];
}

export async function runQueueBench(o: QueueBenchOptions, log: (s: string) => void): Promise<QueueReport> {
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  const model = await peerModel(o.peersDir, o.type, log);
  const files = ensureManySmall(resolve('tmp/photos'), o.images, log);
  const list = join(dir, 'inputs.txt');
  writeFileSync(list, `${files.join('\n')}\n`);
  const redis = await startRedis();
  const client = await connectOnce(redis.url);
  try {
    const rounds: ThroughputRound[] = [];
    for (let r = 0; r < o.rounds; r++) {
      log(`round ${r + 1}/${o.rounds}: jepa embed, ${o.images} images, ${o.threads} threads`);
      const embedOut = join(dir, 'embed.npy');
      const started = performance.now();
      const embedLog = await jepa(['embed', '-m', model, `@${list}`, '-t', String(o.threads), '--batch', String(o.batch), '-o', embedOut]);
      const embedWallS = (performance.now() - started) / 1000;
      const rate = /\(([\d.]+) items\/s\)/.exec(embedLog);
      if (!rate) throw new Error(`jepa embed printed no rate:\n${embedLog.slice(-1000)}`);
      log(`round ${r + 1}/${o.rounds}: the queue, ${o.workers} workers x ${o.threads / o.workers} threads`);
      const q = await throughQueue(o, model, list, redis.url, client, `round-${r}`, dir, log);
      const identical = cmpSync(embedOut, q.output) && cmpSync(`${embedOut}.index.jsonl`, `${q.output}.index.jsonl`);
      rounds.push({ embedItemsPerSecond: Number(rate[1]), embedWallS, queueItemsPerSecond: o.images / q.wallS, queueWallS: q.wallS, identical });
      log(
        `  embed ${Number(rate[1]).toFixed(2)} items/s, queue ${(o.images / q.wallS).toFixed(2)} items/s, outputs ${identical ? 'identical' : 'DIFFER'}`,
      );
    }
    const overhead: OverheadRow[] = [];
    const few = files.slice(0, o.overheadImages);
    const fewList = join(dir, 'overhead-inputs.txt');
    writeFileSync(fewList, `${few.join('\n')}\n`);
    for (const batch of o.overheadBatches) {
      log(`overhead at batch ${batch}: ${few.length} images, 1 worker x ${o.threads} threads`);
      overhead.push(await overheadAt(o, model, fewList, batch, redis.url, client, dir, log));
    }
    const memory: QueueReport['memory'] = [];
    for (const n of o.memoryImages) {
      log(`memory: jepa embed --pool none of ${n} images`);
      const out = join(dir, `tokens-${n}.npy`);
      const run = await runJepaEmbed(model, [`@${listOf(dir, files.slice(0, n), `memory-${n}.txt`)}`], o.threads, out, [
        '--pool',
        'none',
        '--batch',
        String(o.batch),
      ]);
      memory.push({ images: n, outputMiB: statSync(out).size / 2 ** 20, maxRssMiB: run.maxRssMiB });
      rmSync(out);
    }
    const ratios = rounds.map((r) => r.queueItemsPerSecond / r.embedItemsPerSecond);
    return { model, images: o.images, threads: o.threads, workers: o.workers, batch: o.batch, rounds, medianRatio: median(ratios), overhead, memory };
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

/** Workers already up (their model loaded, as a running fleet's would be), then add → all done → collect. */
async function throughQueue(
  o: QueueBenchOptions,
  model: string,
  list: string,
  url: string,
  client: Redis,
  name: string,
  dir: string,
  log: (s: string) => void,
) {
  const shards = join(dir, 'shards');
  rmSync(join(shards, name), { recursive: true, force: true });
  const threads = String(Math.max(1, Math.floor(o.threads / o.workers)));
  const workers: WorkerProcess[] = [];
  try {
    for (let w = 0; w < o.workers; w++)
      workers.push(await startWorker([name, '-m', model, '--out', shards, '--redis', url, '-t', threads, '--batch', String(o.batch)], log));
    const output = join(dir, `${name}.npy`);
    const started = performance.now();
    await jepa(['queue', 'add', name, `@${list}`, '--batch', String(o.batch), '--redis', url]);
    await waitFinished(client, name);
    await jepa(['queue', 'collect', name, '-o', output, '--redis', url]);
    return { wallS: (performance.now() - started) / 1000, output };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

function listOf(dir: string, files: readonly string[], name: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${files.join('\n')}\n`);
  return path;
}

async function waitFinished(client: Redis, name: string): Promise<void> {
  for (;;) {
    if (isFinished(await queueStatus(client, name))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function overheadAt(
  o: QueueBenchOptions,
  model: string,
  list: string,
  batch: number,
  url: string,
  client: Redis,
  dir: string,
  log: (s: string) => void,
): Promise<OverheadRow> {
  const name = `overhead-${batch}`;
  const shards = join(dir, 'shards');
  const worker = await startWorker([name, '-m', model, '--out', shards, '--redis', url, '-t', String(o.threads), '--batch', String(batch)], log);
  let jobs: { processedOn?: number; finishedOn?: number; returnvalue: { seconds: number; shard: string } }[];
  let redisCpuS = 0;
  try {
    const before = await redisCpuSeconds(client);
    await jepa(['queue', 'add', name, `@${list}`, '--batch', String(batch), '--redis', url]);
    await waitFinished(client, name);
    redisCpuS = (await redisCpuSeconds(client)) - before;
    const queue = new Queue(name, { connection: client });
    jobs = await queue.getJobs(['completed'], 0, -1, true);
    await queue.close();
  } finally {
    await worker.stop();
  }
  for (const j of jobs) readShard(j.returnvalue.shard); // every shard is whole
  const spanS = (Math.max(...jobs.map((j) => j.finishedOn!)) - Math.min(...jobs.map((j) => j.processedOn!))) / 1000;
  const inJobsS = jobs.reduce((s, j) => s + j.returnvalue.seconds, 0);
  const embedLog = await jepa([
    'embed',
    '-m',
    model,
    `@${list}`,
    '-t',
    String(o.threads),
    '--batch',
    String(batch),
    '-o',
    join(dir, `overhead-${batch}.npy`),
  ]);
  const rate = /\(([\d.]+) items\/s\)/.exec(embedLog);
  return {
    batch,
    jobs: jobs.length,
    spanS,
    inJobsS,
    overheadMsPerJob: ((spanS - inJobsS) * 1000) / jobs.length,
    embedItemsPerSecond: rate ? Number(rate[1]) : NaN,
    redisCpuMsPerJob: (redisCpuS * 1000) / jobs.length,
  };
}

/** used_cpu_user + used_cpu_sys of the Redis server, seconds (its status polls and idle ticks included). */
async function redisCpuSeconds(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const field = (key: string) => Number(new RegExp(`^${key}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

export function queueMarkdown(r: QueueReport): string {
  const lines = [
    `Model ${r.model}, ${r.images} images (1024 px JPEG), jepa embed with ${r.threads} threads against ${r.workers} workers x ${r.threads / r.workers} threads through the queue, --batch ${r.batch}.`,
    '',
    '| round | jepa embed items/s | queue items/s (add → collect) | queue / embed | jepa embed wall s | outputs identical |',
    '|---:|---:|---:|---:|---:|:---:|',
    ...r.rounds.map(
      (x, i) =>
        `| ${i + 1} | ${x.embedItemsPerSecond.toFixed(2)} | ${x.queueItemsPerSecond.toFixed(2)} | ${(x.queueItemsPerSecond / x.embedItemsPerSecond).toFixed(3)} | ${x.embedWallS.toFixed(1)} | ${x.identical ? 'yes' : 'NO'} |`,
    ),
    '',
    `Median queue / embed: **${r.medianRatio.toFixed(3)}**.`,
    '',
    '| batch | jobs | span s (first start → last end) | in jobs s | overhead ms per job | Redis CPU ms per job | jepa embed items/s, same inputs |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...r.overhead.map(
      (x) =>
        `| ${x.batch} | ${x.jobs} | ${x.spanS.toFixed(2)} | ${x.inJobsS.toFixed(2)} | ${x.overheadMsPerJob.toFixed(2)} | ${x.redisCpuMsPerJob.toFixed(3)} | ${x.embedItemsPerSecond.toFixed(2)} |`,
    ),
  ];
  if (r.memory.length > 0)
    lines.push(
      '',
      '| jepa embed --pool none, images | output MiB | peak RSS MiB |',
      '|---:|---:|---:|',
      ...r.memory.map((m) => `| ${m.images} | ${m.outputMiB.toFixed(0)} | ${m.maxRssMiB.toFixed(0)} |`),
    );
  return lines.join('\n');
}

/** A private redis-server, from the workspace's test kit: the queue bench runs in a checkout, not from an installed package. */
async function startRedis() {
  let kit: typeof import('@jepa/testing');
  try {
    kit = await import('@jepa/testing');
  } catch {
    throw new Error('jepa-bench queue starts its own redis-server with the test kit of a jepa checkout: run it there (pnpm jepa-bench queue)');
  }
  return kit.RedisServer.start();
}
