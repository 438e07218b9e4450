// `jepa-bench pull`.
import type { Command } from 'commander';
import { int } from '../cli-args.js';
import { machineInfo } from '../machine.js';
import { pullMarkdown, runPullBench } from '../pull/pull-bench.js';

export function registerPullBench(program: Command): void {
  program
    .command('pull')
    .description('pull throughput from the loopback Hub through @jepa/hub, beside a plain stream copy of the same bytes to the same disk (the bound)')
    .option('--size-mib <n>', 'size of the seeded file', int, 1024)
    .option('--rounds <n>', 'timed rounds; each runs every way once, in a rotating order', int, 5)
    .option('--dir <path>', 'where the seeded file and the copies are written (not committed)', 'tmp/pull-bench')
    .option('--fsync', "time an fsync of the written file too (the disk's speed, not the page cache's)")
    .option('--compare-hub <dist>', "another build of @jepa/hub (its dist folder, e.g. an older commit's worktree), timed in the same rounds")
    .option('--json', 'print JSON')
    .action(async (o: { sizeMib: number; rounds: number; dir: string; fsync?: boolean; compareHub?: string; json?: boolean }) => {
      const options = { ...o, fsync: o.fsync === true };
      const { rows, bytes } = await runPullBench(options, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(1);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, bytes, rows }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${pullMarkdown(rows, options)}\n`);
    });
}
