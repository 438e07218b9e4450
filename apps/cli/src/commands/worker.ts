// `jepa worker`: one model, jobs from a queue, a shard per job (docs/corpus.md).
import { extname } from 'node:path';
import type { Command } from 'commander';
import { connectForWorker, embedCorpus, redisUrl, startCorpusWorker, type CorpusItem, type Pool } from '@jepa/corpus';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import { addRuntimeOptions, positiveInt } from '../runtime-options.js';
import { normalizeOption } from '../normalize-option.js';
import { poolOption, resolvePool } from '../pool-option.js';
import { say } from '../display-text.js';
import { localModel } from '../hub-model.js';
import { checkOutputFolder } from '../output.js';

interface WorkerFlags extends RuntimeFlags, InputFlags {
  model: string;
  out: string;
  redis?: string;
  concurrency: number;
  pool?: Pool;
  normalize?: boolean;
  lockDuration: number;
  stalledInterval: number;
  maxStalled: number;
}

const CLIP_EXTENSIONS = new Set(['.mp4', '.mkv', '.webm', '.mov', '.avi', '.m4v']);

export function workerCommand(program: Command): void {
  const cmd = program
    .command('worker')
    .description('take embed jobs from a queue and write a shard per job; stops after the current job on SIGTERM')
    .argument('<name>', 'the queue')
    .requiredOption('-m, --model <gguf>', 'the model')
    .requiredOption('--out <dir>', 'the folder for the shards (one that `jepa queue collect` can read)')
    .option('--redis <url>', 'the Redis server (default JEPA_REDIS_URL or redis://127.0.0.1:6379)')
    .option('--concurrency <n>', 'jobs at once, each with its own context', positiveInt, 1)
    .addOption(poolOption())
    .addOption(normalizeOption())
    .option('--lock-duration <ms>', 'a worker silent this long is presumed dead and its job is handed on', positiveInt, 30_000)
    .option('--stalled-interval <ms>', 'how often to look for such jobs', positiveInt, 30_000)
    .option('--max-stalled <n>', 'how many times a job may be handed on before it fails', positiveInt, 1);
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  cmd.action(async (name: string, flags: WorkerFlags) => {
    flags.model = await localModel(flags.model);
    checkOutputFolder(flags.out, '--out');
    const session = await openSession(flags.model, flags);
    const pool = resolvePool(session.spec, flags.pool);
    const input = session.input;
    // one encoder per job at once: the session's own, and more of the same over its weights
    const encoders = [session.encoder, ...Array.from({ length: flags.concurrency - 1 }, () => session.createEncoder())];
    const toItem = (path: string): CorpusItem => {
      const ext = extname(path).toLowerCase();
      if (CLIP_EXTENSIONS.has(ext)) return { label: path, still: false, load: () => input.video(path) };
      if (ext === '.npy') return { label: path, still: false, load: () => input.framesNpy(path) };
      return { label: path, still: true, load: () => input.image(path) };
    };
    let lastError = '';
    const connection = connectForWorker(redisUrl(flags.redis), (err) => {
      if (err.message !== lastError) say(`redis: ${err.message} (retrying)`);
      lastError = err.message;
    });
    const worker = startCorpusWorker({
      queue: name,
      connection,
      outDir: flags.out,
      concurrency: flags.concurrency,
      toItem,
      embed: (items, slot) => embedCorpus(items, { session, encoder: encoders[slot]!, pool, normalize: flags.normalize, batch: flags.batch }),
      lockDurationMs: flags.lockDuration,
      stalledIntervalMs: flags.stalledInterval,
      maxStalledCount: flags.maxStalled,
      onJob: (job, r) => say(`${job}: ${r.rows} embedded${r.failed ? `, ${r.failed} failed` : ''} in ${r.seconds.toFixed(2)} s`),
    });
    worker.on('failed', (job, err) => say(`${job?.id ?? 'a job'}: ${err.message} (attempt ${job?.attemptsMade ?? '?'})`));
    worker.on('error', (err) => {
      if (err.message !== lastError) say(`worker: ${err.message}`);
      lastError = err.message;
    });
    say(
      `worker on ${name}: ${session.spec.name} (${session.spec.family}) on ${session.device}, ${flags.concurrency} at a time; shards in ${flags.out}`,
    );
    await new Promise<void>((done) => {
      const stop = (signal: string) => {
        say(`${signal}: finishing the current job, then stopping`);
        worker.close().then(done, done);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    connection.disconnect();
    await session.dispose();
    say('worker stopped');
  });
}
