// `jepa-bench report`.
import type { Command } from 'commander';
import { writeReport } from '../report.js';
import { int, list } from '../cli-args.js';

export function registerReportBench(program: Command): void {
  program
    .command('report')
    .description('run the standard sweep and write docs/benchmarks.md')
    .option('-t, --threads <n>', 'threads', int, 2)
    .option('-m, --models <list>', 'encoder presets', list, ['vit-ti14', 'vit-b16'])
    .option('-o, --out <file>', 'markdown output', 'docs/benchmarks.md')
    .action(async (o: { threads: number; models: string[]; out: string }) => {
      const command = `pnpm -s jepa-bench report ${process.argv.slice(3).join(' ')}`.trim();
      await writeReport({ ...o, command }, (s) => process.stderr.write(`${s}\n`));
    });
}
