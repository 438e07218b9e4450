// `jepa-bench retrieval`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { int } from '../cli-args.js';

export function registerRetrievalBench(program: Command): void {
  program
    .command('retrieval')
    .description(
      "top-K neighbour agreement of quantized models against an f32 reference on a folder of photos (each image's pooled embedding as jepa embed gives it, L2-normalised)",
    )
    .requiredOption('--reference <gguf>', 'the reference model (f32)')
    .requiredOption('--models <ggufs...>', 'the models to compare with it (same architecture, other weight types)')
    .requiredOption('--photos <dir>', 'a folder of jpg/png images, taken in name order')
    .option('-k, --top <n>', 'K of agreement@K', int, 10)
    .option('-n, --limit <n>', 'only the first N images', int)
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('-b, --batch <n>', 'images per graph, as jepa embed --batch', int, 32)
    .option('--pool <mode>', "mean or cls (default: jepa embed's, CLS where the model has one)")
    .option('--json <file>', 'also write the report as JSON')
    .action(
      async (o: {
        reference: string;
        models: string[];
        photos: string;
        top: number;
        limit?: number;
        threads: number;
        batch: number;
        pool?: string;
        json?: string;
      }) => {
        if (o.pool !== undefined && o.pool !== 'mean' && o.pool !== 'cls') throw new Error(`--pool must be mean or cls, got '${o.pool}'`);
        const { runRetrievalBench, retrievalMarkdown } = await import('../retrieval-bench.js');
        const { writeFileSync } = await import('node:fs');
        const report = await runRetrievalBench({ ...o, pool: o.pool as 'mean' | 'cls' | undefined }, (s) => process.stderr.write(`${s}\n`));
        const machine = machineInfo(o.threads);
        process.stdout.write(`${machine.summary}\n\n${retrievalMarkdown(report)}\n`);
        if (o.json) {
          writeFileSync(o.json, `${JSON.stringify({ machine, report }, null, 2)}\n`);
          process.stderr.write(`wrote ${o.json}\n`);
        }
      },
    );
}
