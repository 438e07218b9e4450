// `jepa-bench zero-shot`.
import type { Command } from 'commander';
import { int, intList } from '../cli-args.js';
import { machineInfo } from '../machine.js';

export function registerZeroShotBench(program: Command): void {
  program
    .command('zero-shot')
    .description(
      'zero-shot classes of a folder of photos against L labels through `jepa classify --labels` (a forged dino.txt ViT-L/16): images per second',
    )
    .option('--dtype <type>', 'f32 or a jepa-quantize type', 'q8_0')
    .option('--images <list>', 'photos per folder (two sizes give the rate per extra photo)', intList, [4, 20])
    .option('--labels <n>', 'labels', int, 100)
    .option('--runs <n>', 'runs per folder', int, 3)
    .option('-t, --threads <n>', 'threads of jepa classify', int, 2)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .action(async (o: { dtype: string; images: number[]; labels: number; runs: number; threads: number; dir: string }) => {
      const { runZeroShotBench } = await import('../zero-shot-bench.js');
      const r = await runZeroShotBench(o, (s) => process.stderr.write(`${s}\n`));
      const lines = [
        `${machineInfo(o.threads).summary}`,
        '',
        `model: ${r.model} (${o.dtype}), ${o.labels} labels, ${o.threads} threads`,
        '',
        '| photos | runs | jepa classify --labels median ms | photos/s end to end |',
        '|---|---|---|---|',
        ...r.rows.map((row) => `| ${row.images} | ${row.wallMs.length} | ${row.medianMs.toFixed(0)} | ${row.imagesPerSecond.toFixed(2)} |`),
        '',
        `photos/s per extra photo (the process, the load and the labels' vectors left out): ${r.marginalImagesPerSecond?.toFixed(2) ?? 'n/a (give two sizes)'}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
