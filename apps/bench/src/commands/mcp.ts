// `jepa-bench mcp`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { count, int } from '../cli-args.js';

export function registerMcpBench(program: Command): void {
  program
    .command('mcp')
    .description('jepa mcp as a client sees it: the embed_image round trip over stdio (p50 / p90), for a path and a data: URI')
    .option('-m, --model <gguf>', 'the model', 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf')
    .option('--image <file>', 'the image (its folder is the root)', 'fixtures/preprocess/sample.jpg')
    .option('-n, --calls <n>', 'timed calls per row', int, 100)
    .option('-w, --warmup <n>', 'untimed calls first', count, 5)
    .option('-t, --threads <n>', 'server compute threads', int, 2)
    .option('--json', 'print JSON')
    .action(async (o: { model: string; image: string; calls: number; warmup: number; threads: number; json?: boolean }) => {
      const { runMcpBench, mcpMarkdown } = await import('../mcp-bench.js');
      const report = await runMcpBench(o, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${mcpMarkdown(report)}\n`);
    });
}
