// `jepa-bench serve-models`.
import type { Command } from 'commander';
import type { ServeModelsOptions } from '../serve-models-bench.js';
import { machineInfo } from '../machine.js';
import { int } from '../cli-args.js';
import { cliBuilds } from '../cli-builds.js';

export function registerServeModelsBench(program: Command): void {
  program
    .command('serve-models')
    .description(
      'jepa serve --models-dir (ViT-B/16 under two names): the first request to a cold model against a warm one, 32 clients over two models against one, VmRSS over load/unload cycles',
    )
    .option('-t, --threads <n>', 'server compute threads', int, 2)
    .option('--type <type>', 'weight type (jepa-quantize names)', 'q8_0')
    .option('--dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
    .option('--repeats <n>', 'cold and warm first requests, each', int, 5)
    .option('-c, --clients <n>', 'concurrent clients of the throughput rows', int, 32)
    .option('-n, --requests <n>', 'timed requests per throughput row', int, 256)
    .option('--cycles <n>', 'load/unload cycles for the RSS row', int, 20)
    .option('--cli <path>', "the jepa CLI to serve (main.js; default this checkout's)")
    .option('--json', 'print JSON')
    .action(async (o: Omit<ServeModelsOptions, 'cli'> & { cli?: string; json?: boolean }) => {
      const { runServeModelsBench, serveModelsMarkdown } = await import('../serve-models-bench.js');
      const report = await runServeModelsBench({ ...o, cli: cliBuilds(o.cli ? [o.cli] : undefined)[0]! }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${serveModelsMarkdown(report, o.type)}\n`);
    });
}
