// `jepa-bench peers`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { PEER_NETS, peerNet } from '../peers/peer-nets.js';
import { PEER_TYPES, peersMarkdown, runPeersBench } from '../peers/peers-bench.js';
import { count, int, list } from '../cli-args.js';

export function registerPeersBench(program: Command): void {
  program
    .command('peers')
    .description('torchvision ViT-B/16 (or --net dinov3-s16, dinov3-b16) at 224: onnxruntime-node against this engine on the same weights')
    .option('-t, --threads <n>', 'threads for both', int, 2)
    .option('-w, --warmup <n>', 'untimed rounds first', count, 2)
    .option('--rounds <n>', 'timed rounds; each runs every runtime once, in a rotating order', int, 15)
    .option('--types <list>', 'engine weight types (jepa-quantize names)', list, PEER_TYPES)
    .option('--dir <path>', 'where the export and the GGUFs live', 'tmp/peers')
    .option('--batch <list>', 'images per call, each size a comparison of its own (e.g. 1,8,32)', list, ['1'])
    .option('--net <id>', `the network: ${PEER_NETS.map((n) => n.id).join(', ')}`, 'vit-b16')
    .option('--md', 'print a markdown table (the default)')
    .option('--json', 'print JSON')
    .action(
      async (o: { threads: number; warmup: number; rounds: number; types: string[]; dir: string; batch: string[]; net: string; json?: boolean }) => {
        const rows = [];
        const net = peerNet(o.net);
        for (const batch of o.batch.map(int)) rows.push(...(await runPeersBench({ ...o, batch, net }, (s) => process.stderr.write(`${s}\n`))));
        const machine = machineInfo(o.threads);
        if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
        else process.stdout.write(`${machine.summary}\n\n${peersMarkdown(rows)}\n`);
      },
    );
}
