// `jepa-bench batch-memory`: an encoder's memory after every batch size 1..N, with the compute buffer
// shared by its graphs (the default) against a buffer per graph (JEPA_SHARED_COMPUTE=0), each in its
// own process, the two taking turns; and the time per item while the batch size changes every call.
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { count, int } from '../cli-args.js';
import { machineInfo } from '../machine.js';
import { PRESETS, presetModel } from '../presets.js';
import { median } from '../stats.js';
import type { ChildResult } from './child.js';

interface Opts {
  model: string;
  dtype: string;
  maxBatch: number;
  rounds: number;
  repeat: number;
  threads: number;
  dir: string;
  json?: boolean;
}

function runOnce(shared: boolean, path: string, size: number, frames: number, o: Opts): ChildResult {
  const child = new URL('./child-main.js', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [child, path, String(size), String(frames), String(o.maxBatch), String(o.rounds), String(o.threads)], {
    env: { ...process.env, JEPA_SHARED_COMPUTE: shared ? '1' : '0' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`the batch-memory child (shared ${shared}) exited ${r.status}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as ChildResult;
}

export function registerBatchMemory(program: Command): void {
  program
    .command('batch-memory')
    .description(
      "an encoder's RSS after encoding every batch size 1..N once, its graphs sharing one compute buffer (default) against a buffer per graph (JEPA_SHARED_COMPUTE=0), in alternating processes; and ms per item while the batch size changes every call",
    )
    .option('-m, --model <preset>', `preset (${Object.keys(PRESETS).join(', ')})`, 'vit-b16')
    .option('--dtype <type>', 'f32, f16, q8_0, q8_row, ...', 'f32')
    .option('--max-batch <n>', 'batch sizes 1..N', int, 16)
    .option('--rounds <n>', 'timed rounds over the N sizes', int, 1)
    .option('-r, --repeat <n>', 'processes of each kind', count, 2)
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--json', 'print every process as JSON')
    .action((o: Opts) => {
      const p = PRESETS[o.model];
      if (!p) throw new Error(`unknown preset '${o.model}' (${Object.keys(PRESETS).join(', ')})`);
      const path = presetModel(o.model, o.dtype, o.dir);
      const runs: ChildResult[] = [];
      for (let i = 0; i < o.repeat; i++)
        for (const shared of [false, true]) {
          process.stderr.write(
            `batch-memory: ${o.model} ${o.dtype}, batch 1..${o.maxBatch}, ${shared ? 'shared buffer' : 'a buffer per graph'} (${i + 1}/${o.repeat})\n`,
          );
          runs.push(runOnce(shared, path, p.size, p.frames, o));
        }
      const machine = machineInfo(o.threads);
      if (o.json) {
        process.stdout.write(`${JSON.stringify({ machine, model: o.model, dtype: o.dtype, maxBatch: o.maxBatch, runs }, null, 2)}\n`);
        return;
      }
      const of = (shared: boolean) => runs.filter((r) => r.shared === shared);
      const row = (shared: boolean) => {
        const rs = of(shared);
        const m = (f: (r: ChildResult) => number) => median(rs.map(f));
        return `| ${shared ? 'shared (default)' : 'a buffer per graph'} | ${m((r) => r.rssLoadedMib).toFixed(0)} | ${m((r) => r.rssFirstMib).toFixed(0)} | ${m((r) => r.rssAfterMib).toFixed(0)} | ${m((r) => r.rssAfterMib - r.rssFirstMib).toFixed(0)} | ${shared ? m((r) => r.sharedComputeMib).toFixed(1) : ''} | ${m((r) => r.switchingMsPerItem).toFixed(2)} |`;
      };
      process.stdout.write(
        [
          machine.summary,
          '',
          `${PRESETS[o.model]!.title} ${o.dtype}, every batch size 1..${o.maxBatch} encoded once; medians of ${o.repeat} processes each`,
          '',
          '| compute buffers | RSS loaded MiB | after batch 1 | after 1..N | growth from batch 1 | shared buffer MiB | ms per item, size changing every call |',
          '|---|---:|---:|---:|---:|---:|---:|',
          row(false),
          row(true),
          '',
        ].join('\n'),
      );
    });
}
