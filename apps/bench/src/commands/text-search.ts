// `jepa-bench text-search`.
import type { Command } from 'commander';
import { count, int } from '../cli-args.js';
import { machineInfo } from '../machine.js';

export function registerTextSearchBench(program: Command): void {
  program
    .command('text-search')
    .description(
      'a query by words end to end through `jepa search --text` (a process per query) on an index of N rows of a dino.txt model: wall p50/p90',
    )
    .requiredOption('-m, --model <gguf>', 'a dino.txt GGUF (jepa convert DINOTXT.pth --backbone ...)')
    .option('--rows <n>', 'rows in the index', int, 100_000)
    .option('--text <words>', 'the query', 'a red car parked at night')
    .option('--runs <n>', 'timed queries', int, 20)
    .option('--warmup <n>', 'queries run first, untimed', count, 2)
    .option('-t, --threads <n>', 'threads of jepa search', int, 2)
    .option('--dir <dir>', 'where the temporary index goes (default: the system temp folder)')
    .action(async (o: { model: string; rows: number; text: string; runs: number; warmup: number; threads: number; dir?: string }) => {
      const { runTextSearchBench } = await import('../text-search-bench.js');
      const r = await runTextSearchBench({ ...o }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      const p = r.inProcess;
      process.stdout.write(
        `${machine.summary}\n\n| rows | dim | runs | jepa search --text p50 ms | p90 ms | in process: load p50 ms | embedText p50 ms | search p50 ms |\n|---|---|---|---|---|---|---|---|\n| ${r.rows} | ${r.dim} | ${r.wallMs.length} | ${r.p50Ms.toFixed(1)} | ${r.p90Ms.toFixed(1)} | ${p.loadMs.toFixed(1)} | ${p.embedMs.toFixed(2)} | ${p.searchMs.toFixed(2)} |\n`,
      );
    });
}
