// `jepa-bench cpu-levels`.
import type { Command } from 'commander';
import { runVariantsBench } from '../variants-bench.js';
import { int, list } from '../cli-args.js';
import { printVariants } from './print-variants.js';

export function registerCpuLevelsBench(program: Command): void {
  program
    .command('cpu-levels')
    .description(
      "the encoder with this engine's CPU kernels at each level this CPU runs (JEPA_CPU), and ggml's own at the AVX2 level, in rotating rounds",
    )
    .option('-m, --models <list>', 'presets or .gguf files', list, ['vit-b16'])
    .option('--dtype <list>', 'weight types', list, ['f32', 'q8_0'])
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('-r, --repeat <n>', 'timed runs per round', int, 5)
    .option('--rounds <n>', 'rounds; each runs every variant once', int, 5)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--json', 'print JSON')
    .action(async (o: { models: string[]; dtype: string[]; threads: number; repeat: number; rounds: number; dir: string; json?: boolean }) => {
      const { cpuLevelVariants } = await import('../cpu-levels.js');
      const rows = await runVariantsBench(
        cpuLevelVariants(),
        { models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, rounds: o.rounds, dir: o.dir },
        (s) => process.stderr.write(`${s}\n`),
      );
      printVariants(rows, o.threads, o.json);
    });
}
