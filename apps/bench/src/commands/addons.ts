// `jepa-bench addons`.
import type { Command } from 'commander';
import { runVariantsBench } from '../variants-bench.js';
import { int, list } from '../cli-args.js';
import { printVariants } from './print-variants.js';

export function registerAddonsBench(program: Command): void {
  program
    .command('addons')
    .description('the encoder under several builds of the addon (portable against -march=native), side by side in rotating rounds')
    .option('--addon <list>', 'the .node files to compare, the first is the baseline', list, [
      'native/build-native/Release/jepa_native.node',
      'native/build/Release/jepa_native.node',
    ])
    .option('-m, --models <list>', 'presets or .gguf files', list, ['vit-b16'])
    .option('--dtype <list>', 'weight types', list, ['f32', 'q8_0'])
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('-r, --repeat <n>', 'timed runs per round', int, 5)
    .option('--rounds <n>', 'rounds; each runs every build once', int, 5)
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--json', 'print JSON')
    .action(
      async (o: {
        addon: string[];
        models: string[];
        dtype: string[];
        threads: number;
        repeat: number;
        rounds: number;
        dir: string;
        json?: boolean;
      }) => {
        const { existsSync } = await import('node:fs');
        const { resolve } = await import('node:path');
        // JEPA_ADDON is handed to require(), which needs an absolute path
        const addons = o.addon.map((a) => resolve(a));
        for (const a of addons) if (!existsSync(a)) throw new Error(`no addon at ${a}`);
        const rows = await runVariantsBench(
          addons.map((a) => ({ label: a, env: { JEPA_ADDON: a } })),
          { models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, rounds: o.rounds, dir: o.dir },
          (s) => process.stderr.write(`${s}\n`),
        );
        printVariants(rows, o.threads, o.json);
      },
    );
}
