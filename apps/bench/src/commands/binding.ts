// `jepa-bench binding`.
import type { Command } from 'commander';
import { bindingReportMarkdown, runBindingBench } from '../binding-bench.js';
import { machineInfo } from '../machine.js';
import { count, int } from '../cli-args.js';

export function registerBindingBench(program: Command): void {
  program
    .command('binding')
    .description('what the JS binding costs: graph building, and mul_mat against a C++ driver on the same ggml')
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('-r, --repeat <n>', 'timed runs per measurement', int, 10)
    .option('-w, --warmup <n>', 'untimed runs first', count, 2)
    .option('--rounds <n>', 'alternations of binding and driver per row', int, 3)
    .option('--md', 'print a markdown table (the default)')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { threads: number; repeat: number; warmup: number; rounds: number; json?: boolean }) => {
      const report = await runBindingBench(opts, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(opts.threads);
      if (opts.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${bindingReportMarkdown(report)}\n`);
    });
}
