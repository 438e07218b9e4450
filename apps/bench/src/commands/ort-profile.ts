// `jepa-bench ort-profile`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { ortProfileMarkdown, runOrtProfile } from '../peers/ort-profile.js';
import { count, int } from '../cli-args.js';

export function registerOrtProfileBench(program: Command): void {
  program
    .command('ort-profile')
    .description("onnxruntime-node's own profile of the peer ViT-B/16 (fp32 or --int8), summed per op type")
    .option('-t, --threads <n>', 'intra-op threads', int, 2)
    .option('-r, --runs <n>', 'profiled runs', int, 10)
    .option('-w, --warmup <n>', 'untimed runs first', count, 3)
    .option('--dir <path>', 'where the export lives', 'tmp/peers')
    .option('--int8', 'profile the int8 file transformers.js would ship (dynamic u8 activations, s8 weights)')
    .action(async (o: { threads: number; runs: number; warmup: number; dir: string; int8?: boolean }) => {
      const profile = await runOrtProfile(o, (s) => process.stderr.write(`${s}\n`));
      process.stdout.write(`${machineInfo(o.threads).summary}\n\n${ortProfileMarkdown(profile)}\n`);
    });
}
