// `jepa-bench encoder`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { encoderMarkdown, opsMarkdown, runEncoderBench } from '../encoder-bench.js';
import { PRESETS } from '../presets.js';
import { count, int, intList, list } from '../cli-args.js';

export function registerEncoderBench(program: Command): void {
  program
    .command('encoder')
    .description('encoder ms per item on real-size models with random weights (forged once into --dir)')
    .option('-m, --models <list>', `presets (${Object.keys(PRESETS).join(', ')}) or .gguf files`, list, ['vit-b16'])
    .option('--dtype <list>', 'f32, f16, q8_0, q8_row, q4_k, q4_0 (quantized: the f32 preset through jepa-quantize)', list, ['f32'])
    .option('-t, --threads <list>', 'thread counts', intList, [2])
    .option('-b, --batch <list>', 'batch sizes (images or clips)', intList, [1])
    .option('--device <name>', 'cpu, cuda, cuda:N (Model.load)', 'cpu')
    .option('--size <list>', "input sizes in pixels (default: the preset's)", intList, [])
    .option('--frames <list>', "clip lengths for video presets (default: the preset's)", intList, [])
    .option('-r, --repeat <n>', 'timed runs', int, 5)
    .option('-w, --warmup <n>', 'untimed runs first', count, 1)
    .option('--no-flash', 'naive attention')
    .option('--profile', 'also run node by node and print the time per op')
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--md', 'print a markdown table (the default)')
    .option('--json', 'print every sample as JSON')
    .action(
      async (o: {
        models: string[];
        dtype: string[];
        threads: number[];
        batch: number[];
        size: number[];
        frames: number[];
        repeat: number;
        warmup: number;
        flash: boolean;
        profile?: boolean;
        dir: string;
        device: string;
        json?: boolean;
      }) => {
        const rows = await runEncoderBench(
          {
            models: o.models,
            dtypes: o.dtype,
            threads: o.threads,
            batches: o.batch,
            sizes: o.size,
            frames: o.frames,
            repeat: o.repeat,
            warmup: o.warmup,
            dir: o.dir,
            noFlash: !o.flash,
            profile: o.profile ?? false,
            device: o.device,
          },
          (s) => process.stderr.write(`${s}\n`),
        );
        const machine = machineInfo(Math.max(...o.threads));
        if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
        else {
          const ops = opsMarkdown(rows);
          process.stdout.write(`${machine.summary}\n\n${encoderMarkdown(rows)}\n${ops ? `\n${ops}\n` : ''}`);
        }
      },
    );
}
