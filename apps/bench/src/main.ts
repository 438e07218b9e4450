#!/usr/bin/env node
import { Command } from 'commander';
import { bindingReportMarkdown, runBindingBench } from './binding-bench.js';
import { machineInfo } from './machine.js';

const program = new Command('jepa-bench').description('Benchmarks of the jepa engine (markdown and JSON reports)');

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got '${v}'`);
  return n;
};

program
  .command('binding')
  .description('what the JS binding costs: graph building, and mul_mat against a C++ driver on the same ggml')
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('-r, --repeat <n>', 'timed runs per measurement', int, 10)
  .option('-w, --warmup <n>', 'untimed runs first', int, 2)
  .option('--rounds <n>', 'alternations of binding and driver per row', int, 3)
  .option('--json', 'print the report as JSON')
  .action(async (opts: { threads: number; repeat: number; warmup: number; rounds: number; json?: boolean }) => {
    const report = await runBindingBench(opts, (s) => process.stderr.write(`${s}\n`));
    const machine = machineInfo(opts.threads);
    if (opts.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
    else process.stdout.write(`${machine.summary}\n\n${bindingReportMarkdown(report)}\n`);
  });

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`jepa-bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
