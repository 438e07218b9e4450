// `jepa-bench queue`.
import type { Command } from 'commander';
import type { QueueBenchOptions } from '../queue/queue-bench.js';
import { machineInfo } from '../machine.js';
import { int, intList } from '../cli-args.js';

export function registerQueueBench(program: Command): void {
  program
    .command('queue')
    .description(
      'jepa embed against the same images through jepa queue + workers (a real redis-server): items/s side by side, and the overhead per job',
    )
    .option('-n, --images <n>', 'images in the corpus (1024-px JPEGs)', int, 1000)
    .option('-t, --threads <n>', 'threads of the one jepa embed, shared out among the workers', int, 2)
    .option('-w, --workers <n>', 'workers', int, 2)
    .option('-b, --batch <n>', 'inputs per job and per graph', int, 32)
    .option('--rounds <n>', 'alternating rounds of embed and queue', int, 1)
    .option('--overhead-batches <list>', 'batch sizes for the overhead per job', intList, [1, 8, 32])
    .option('--overhead-images <n>', 'images for each overhead row', int, 96)
    .option('--memory-images <list>', 'corpus sizes for jepa embed --pool none peak RSS (empty: skip)', intList, [100, 400])
    .option('--type <type>', 'weight type (jepa-quantize names)', 'f32')
    .option('--dir <path>', 'lists, shards and outputs', 'tmp/queue-bench')
    .option('--peers-dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
    .option('--json', 'print JSON')
    .action(async (o: QueueBenchOptions & { json?: boolean }) => {
      const { runQueueBench, queueMarkdown } = await import('../queue/queue-bench.js');
      const report = await runQueueBench(o, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${queueMarkdown(report)}\n`);
    });
}
