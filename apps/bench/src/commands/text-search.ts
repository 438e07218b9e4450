// `jepa-bench text-search`.
import type { Command } from 'commander';
import { collect, count, int } from '../cli-args.js';
import { machineInfo } from '../machine.js';

export function registerTextSearchBench(program: Command): void {
  program
    .command('text-search')
    .description(
      'a query by words end to end on an index of N rows of a dino.txt model, per-query wall p50/p90: `jepa search --text` (a process per query), one `jepa search --texts -` fed a line at a time, POST /v1/search to `jepa serve --index`',
    )
    .requiredOption('-m, --model <gguf>', 'a dino.txt GGUF (jepa convert DINOTXT.pth --backbone ...)')
    .option('--rows <n>', 'rows in the index', int, 100_000)
    .option('--text <words>', 'a query (repeatable; default 20 different short phrases), cycled', collect)
    .option('--runs <n>', 'timed queries', int, 20)
    .option('--warmup <n>', 'queries run first, untimed', count, 2)
    .option('-t, --threads <n>', 'threads of jepa search', int, 2)
    .option('--dir <dir>', 'where the temporary index goes (default: the system temp folder)')
    .action(async (o: { model: string; rows: number; text?: string[]; runs: number; warmup: number; threads: number; dir?: string }) => {
      const { DEFAULT_QUERIES, runTextSearchBench } = await import('../text-search-bench.js');
      const { text, ...rest } = o;
      const r = await runTextSearchBench({ ...rest, queries: text ?? DEFAULT_QUERIES }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      const p = r.inProcess;
      const row = (how: string, t: { ms: number[]; p50: number; p90: number }) =>
        `| ${how} | ${r.rows} | ${r.dim} | ${r.queries} | ${t.ms.length} | ${t.p50.toFixed(1)} | ${t.p90.toFixed(1)} |\n`;
      process.stdout.write(
        `${machine.summary}\n\n| a query by words | rows | dim | queries | runs | p50 ms | p90 ms |\n|---|---|---|---|---|---|---|\n${row('`jepa search --text`, a process per query', r.process)}${row('one `jepa search --texts -`, a line at a time', r.stdin)}${row('POST /v1/search to `jepa serve --index`', r.serve)}\n| in process (first query): load p50 ms | embedText p50 ms | search p50 ms |\n|---|---|---|\n| ${p.loadMs.toFixed(1)} | ${p.embedMs.toFixed(2)} | ${p.searchMs.toFixed(2)} |\n`,
      );
    });
}
