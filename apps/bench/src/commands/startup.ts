// `jepa-bench startup`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { count, int, list } from '../cli-args.js';
import { cliBuilds } from '../cli-builds.js';
import { runStartupBench, startupMarkdown } from '../startup-bench.js';

export function registerStartupBench(program: Command): void {
  program
    .command('startup')
    .description('jepa from start to exit (--help, features --pca on the demo model): wall time, peak RSS and whether fastify loads, per CLI build')
    .option('--cli <list>', "builds of the jepa CLI, taking turns (main.js paths; default this checkout's)", list)
    .option('-m, --model <gguf>', 'the model features loads', 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf')
    .option('--image <file>', 'the image features maps', 'fixtures/preprocess/sample.jpg')
    .option('-t, --threads <n>', 'compute threads of features', int, 2)
    .option('-n, --runs <n>', 'timed runs per build and command', int, 10)
    .option('-w, --warmup <n>', 'untimed runs per build and command first', count, 1)
    .option('--json', 'print every sample as JSON')
    .action((o: { cli?: string[]; model: string; image: string; threads: number; runs: number; warmup: number; json?: boolean }) => {
      const report = runStartupBench({ ...o, clis: cliBuilds(o.cli) }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${startupMarkdown(report)}\n`);
    });
}
