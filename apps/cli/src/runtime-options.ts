import { InvalidArgumentError, Option, type Command } from 'commander';

/** A commander parser: commander prints "option '--threads <n>' argument '0' is invalid: expected a positive integer". */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** The device, thread and attention flags every model-running command shares. */
export function addRuntimeOptions(cmd: Command): Command {
  return cmd
    .option('--batch <n>', 'image items per graph (default 32, JEPA_MAX_BATCH)', positiveInt)
    .option('-t, --threads <n>', 'CPU threads (default: JEPA_THREADS, else the CPUs this process may use, a CFS quota rounded up)', positiveInt)
    .option('--gpu [n]', 'run on GPU n (default 0); needs a CUDA build')
    .option('--no-flash', 'naive attention (fully F32, N² memory): debugging and short sequences')
    .addOption(new Option('--kv-f16', 'F16 K/V in flash attention').conflicts('kvF32'))
    .addOption(new Option('--kv-f32', 'F32 K/V in flash attention').conflicts('kvF16'))
    .option('--timeout <seconds>', 'stop a compute that runs longer than this (each encode of a batch), with an error', positiveSeconds)
    .option('--allow-nonfinite', 'load a model whose weights hold NaN or Inf (refused by default)');
}

/** A commander parser for --timeout: a positive number of seconds, fractions allowed. */
export function positiveSeconds(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
}
