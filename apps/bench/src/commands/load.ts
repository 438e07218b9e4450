// `jepa-bench load`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { PRESETS } from '../presets.js';
import { count, int, list } from '../cli-args.js';

export function registerLoadBench(program: Command): void {
  program
    .command('load')
    .description('Model.load with and without the non-finite weight scan, and the scan alone (median ms), on real-size models with random weights')
    .option('-m, --models <list>', `presets (${Object.keys(PRESETS).join(', ')})`, list, ['vit-h14'])
    .option('--dtype <list>', 'f32, f16, q8_0, q8_row, q4_k, q4_0 (quantized: the f32 preset through jepa-quantize)', list, ['f32', 'q8_0'])
    .option('-t, --threads <n>', 'threads of Model.load and of the scan', int, 2)
    .option('-r, --repeat <n>', 'timed runs of each', int, 5)
    .option('-w, --warmup <n>', 'untimed runs of each first', count, 1)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--json', 'print every sample as JSON')
    .action(async (o: { models: string[]; dtype: string[]; threads: number; repeat: number; warmup: number; dir: string; json?: boolean }) => {
      const { runLoadBench, loadMarkdown } = await import('../load-bench.js');
      const rows = await runLoadBench(
        { models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, warmup: o.warmup, dir: o.dir },
        (s) => process.stderr.write(`${s}\n`),
      );
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${loadMarkdown(rows)}\n`);
    });
}
