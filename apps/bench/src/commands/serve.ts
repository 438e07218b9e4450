// `jepa-bench serve`.
import type { Command } from 'commander';
import type { ServeBenchOptions } from '../serve-bench.js';
import { machineInfo } from '../machine.js';
import { int, intList, list } from '../cli-args.js';
import { cliBuilds } from '../cli-builds.js';

export function registerServeBench(program: Command): void {
  program
    .command('serve')
    .description(
      'jepa serve under load (ViT-B/16 images on loopback): req/s, p50/p99 and graph sizes at each --max-batch x clients, beside the encoder alone at batch 8',
    )
    .option('-t, --threads <n>', 'server compute threads', int, 2)
    .option('-c, --clients <list>', 'concurrent clients', intList, [1, 8, 32])
    .option('--max-batch <list>', 'server --max-batch values', intList, [1, 8])
    .option('-n, --requests <n>', 'timed requests per row (per build and round with several --cli)', int, 128)
    .option('--seconds <s>', 'timed seconds per row instead of a count', int)
    .option('--type <type>', 'weight type (jepa-quantize names)', 'q8_0')
    .option('--size <px>', 'side of the PNG each request sends', int, 256)
    .option('--dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
    .option('--cli <list>', "builds of the jepa CLI to serve, taking turns in each row (main.js paths; default this checkout's)", list)
    .option('--rounds <n>', 'turns of every build per row', int, 1)
    .option('--json', 'print JSON')
    .action(async (o: Omit<ServeBenchOptions, 'clis'> & { cli?: string[]; json?: boolean }) => {
      const { runServeBench, serveMarkdown } = await import('../serve-bench.js');
      const report = await runServeBench({ ...o, clis: cliBuilds(o.cli) }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${serveMarkdown(report)}\n`);
    });
}
