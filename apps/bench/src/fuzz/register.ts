// `jepa-bench fuzz-engine`: the campaign (pnpm fuzz:engine --seconds N --seed S) or, with --replay DIR,
// the kept findings. Exit 1 when a case or a replayed file gives a finding.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { count, int } from '../cli-args.js';
import { machineInfo } from '../machine.js';

interface FuzzOpts {
  seconds: number;
  seed: number;
  inputs?: number;
  out: string;
  timeoutMs: number;
  computeMs: number;
  memoryMib: number;
  replay?: string;
  json?: boolean;
}

export function registerFuzzEngine(program: Command): void {
  program
    .command('fuzz-engine')
    .description(
      'mutate forged models of every family (metadata values, the tensor table) and run each file the engine loads through encode, pool, classify and predict in a child process; a crash, a hang, memory past the budget, a NaN or a non-engine error is a finding',
    )
    .option('--seconds <n>', 'how long to run', int, 10)
    .option('--seed <n>', 'the campaign seed: same seed, same cases', count, 1)
    .option('--inputs <n>', 'stop after this many cases', int)
    .option('--out <dir>', 'where findings are written (minimised, .gguf + .json)', 'fuzz-engine-findings')
    .option('--timeout-ms <n>', 'per-file wall clock, load included; past it the file is a hang', int, 30_000)
    .option('--compute-ms <n>', "the engine's compute deadline (timeoutMs) of every graph call in the child", int, 5_000)
    .option('--memory-mib <n>', "the child's resident memory budget", int, 1024)
    .option('--replay <dir>', 'run the .gguf files of DIR instead (the regression set) and report each')
    .option('--json', 'print the result as JSON')
    .action(async (o: FuzzOpts) => {
      const { fuzzEngine, replayFiles, summary } = await import('./engine-fuzz.js');
      const limits = { timeoutMs: o.timeoutMs, computeMs: o.computeMs, memoryMib: o.memoryMib };
      const machine = machineInfo(1);
      if (o.replay !== undefined) {
        const rows = await replayFiles(resolve(process.env.INIT_CWD ?? process.cwd(), o.replay), limits);
        const bad = rows.filter((r) => r.outcome.status === 'finding');
        if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
        else
          for (const r of rows) {
            const x = r.outcome;
            const what =
              x.status === 'finding'
                ? `FINDING ${x.kind} at ${x.stage}: ${x.detail.split('\n')[0]}`
                : x.status === 'refused'
                  ? `refused at ${x.stage}: ${x.code} (${x.kind})`
                  : `ran ${x.ops.join(', ')}`;
            process.stdout.write(`${r.file}: ${what}\n`);
          }
        process.stderr.write(`replayed ${rows.length} files, ${bad.length} findings\n`);
        process.exitCode = bad.length > 0 ? 1 : 0;
        return;
      }
      const stats = await fuzzEngine({
        ...limits,
        seed: o.seed,
        seconds: o.seconds,
        ...(o.inputs !== undefined ? { inputs: o.inputs } : {}),
        out: resolve(process.env.INIT_CWD ?? process.cwd(), o.out),
        log: (s) => process.stderr.write(`${s}\n`),
      });
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, stats }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n${summary(stats)}\n`);
      process.exitCode = stats.findings.length > 0 ? 1 : 0;
    });
}
