#!/usr/bin/env node
import { Command } from 'commander';
import { TARGETS, type Target } from './plan.js';
import { quantizeFile } from './quantize-file.js';

const program = new Command('jepa-quantize')
  .description("re-type a model's 2-D matmul weights with ggml's quantizers, or as q8_row (norms, biases, tables stay f32)")
  .argument('<in>', 'an f32 / f16 .gguf')
  .argument('<out>', 'the output .gguf')
  .argument('<type>', TARGETS.join(' | '))
  .option('--keep <substr...>', 'keep tensors whose name contains any of these')
  .addHelpText(
    'after',
    "\nOn x86 CPUs with VNNI (AVX-512 or AVX-VNNI), q8_0, q4_k and q4_0 run on the engine's own kernels;\n" +
      "the other types run on ggml's. `jepa devices` says which. q8_0 is the closest to f32.\n" +
      '\nq8_row: int8 weights with one f32 scale per output row (any row length; general.file_type 1000);\n' +
      'each token is quantized once to 8 bits at run time and every output is one exact int32 dot. The\n' +
      'fastest type on x86 CPUs with AMX, AVX-512 VNNI or AVX-VNNI (docs/quantization.md); elsewhere, and on a GPU,\n' +
      'it is dequantized to f16 at load.',
  )
  .action(async (input: string, output: string, type: string, opts: { keep?: string[] }) => {
    const target = type.toLowerCase() as Target;
    if (!TARGETS.includes(target)) throw new Error(`unknown type '${type}' (use ${TARGETS.join(', ')})`);
    const tty = process.stderr.isTTY;
    const r = await quantizeFile(input, output, target, opts.keep ?? [], (done, total, name) => {
      if (tty) process.stderr.write(`\r[${done}/${total}] ${name.padEnd(40).slice(0, 40)}`);
    });
    if (tty) process.stderr.write('\n');
    for (const f of r.fallbacks) process.stderr.write(`jepa-quantize: ${f}\n`);
    process.stderr.write(
      `jepa-quantize: ${r.changed} tensors -> ${target}; ${(r.bytesIn / 2 ** 20).toFixed(1)} MiB -> ${(r.bytesOut / 2 ** 20).toFixed(1)} MiB: ${output}\n`,
    );
  });

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`jepa-quantize: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
