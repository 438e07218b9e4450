// `jepa-bench wide-panels`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { int } from '../cli-args.js';

export function registerWidePanelsBench(program: Command): void {
  program
    .command('wide-panels')
    .description('the 8-bit panels in wide tiles (4 tokens x 3 panels) against one panel at a time, interleaved in one process (JEPA_PANEL_WIDE)')
    .option('-m, --model <name>', 'a preset or a .gguf file', 'vit-b16')
    .option('--dtype <type>', 'weight type of a preset', 'q8_0')
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('--rounds <n>', 'pairs of runs', int, 21)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .action(async (o: { model: string; dtype: string; threads: number; rounds: number; dir: string }) => {
      const { runWidePanelsBench } = await import('../wide-panels-bench.js');
      const row = await runWidePanelsBench(o, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      process.stdout.write(
        `${machine.summary}\n\n| model | wide tiles ms | one panel at a time ms | median per-pair ratio |\n|---|---|---|---|\n| ${row.model} | ${row.wideMs.toFixed(1)} | ${row.narrowMs.toFixed(1)} | ${row.ratio.toFixed(3)} |\n`,
      );
    });
}
