// `jepa-bench pipeline`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { pipelineMarkdown, runPipelineBench, type PipelineOptions } from '../pipeline/pipeline-bench.js';
import { int, list } from '../cli-args.js';

export function registerPipelineBench(program: Command): void {
  program
    .command('pipeline')
    .description('files to embeddings end to end (ViT-B/16, two photo sets): against the encoder alone, Pillow and transformers.js')
    .option('-t, --threads <n>', 'compute threads, for every runtime', int, 2)
    .option('-b, --batch <n>', 'images per graph, as jepa embed --batch', int, 32)
    .option('--types <list>', 'engine weight types', list, ['f32', 'q8_0'])
    .option('--rounds <n>', 'timed batches of the encoder alone', int, 3)
    .option('--no-tfjs', 'leave transformers.js out')
    .option('--no-rss', 'leave out the 100- against 1000-image memory run')
    .option('--fast-decode', "also jepa embed --fast-decode, and fast decode and Pillow's draft against their full decodes (time and pixels)")
    .option('--dir <path>', 'photo sets, transformers.js and outputs', 'tmp/pipeline')
    .option('--peers-dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
    .option('--json', 'print JSON')
    .action(async (o: Omit<PipelineOptions, 'fastDecode'> & { fastDecode?: boolean; json?: boolean }) => {
      const report = await runPipelineBench({ ...o, fastDecode: o.fastDecode === true }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${pipelineMarkdown(report)}\n`);
    });
}
