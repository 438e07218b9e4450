// What scripts/gpu-check.sh runs with the carried Node on the GPU machine, as one bundle
// (scripts/gpu/pack.mjs): no node_modules there, so no commander either. Every command rewrites its
// JSON after each result, so a run stopped by the time limit still leaves what it measured.
//   machine --out F                        the device list and the build (machineInfo)
//   checks  --device D --out F --tmp DIR   every GPU check (checks.ts)
//   forge   --out F --dir DIR --models a,b --dtypes f16,f32   the bench's models, before it runs
//   bench   --device D --out F --dir DIR --models a,b --dtypes f16,f32 --batches 1,8,32
//           [--repeat N] [--warmup N] [--threads N] [--budget-s S]
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { devices } from '@jepa/native';
import { runEncoderBench, type EncoderRow } from '../src/encoder-bench.js';
import { machineInfo } from '../src/machine.js';
import { presetModel } from '../src/presets.js';
import { gpuChecks, runChecks, type CheckResult } from './checks.js';

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.partial`, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
}

const log = (s: string) => process.stderr.write(`${s}\n`);
const list = (s: string) => s.split(',').filter(Boolean);

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number, not '${value}'`);
  return n;
}

async function machine(out: string): Promise<void> {
  writeJson(out, { ...machineInfo(1), devices: devices() });
}

async function checks(device: string, out: string, tmp: string): Promise<boolean> {
  const results: CheckResult[] = [];
  await runChecks(gpuChecks(tmp), device, (r) => {
    results.push(r);
    log(`${r.pass ? 'pass' : 'FAIL'} ${r.name} (${(r.ms / 1000).toFixed(1)} s): ${r.summary}`);
    writeJson(out, { device, results });
  });
  const failed = results.filter((r) => !r.pass).length;
  log(`checks: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0;
}

/** Forging is plain JS on one core: the GPU machine does it while the addon compiles. */
function forge(out: string, dir: string, models: string[], dtypes: string[]): void {
  const files: { model: string; dtype: string; path: string; seconds: number }[] = [];
  for (const model of models)
    for (const dtype of dtypes) {
      const t0 = performance.now();
      const path = presetModel(model, dtype, dir);
      files.push({ model, dtype, path, seconds: (performance.now() - t0) / 1000 });
      log(`forged ${path} in ${files.at(-1)!.seconds.toFixed(1)} s`);
      writeJson(out, { files });
    }
}

interface BenchArgs {
  device: string;
  out: string;
  dir: string;
  models: string[];
  dtypes: string[];
  batches: number[];
  repeat: number;
  warmup: number;
  threads: number;
  budgetS: number;
}

/**
 * One sweep per model (its dtypes together, so each row after the first carries its token cosine
 * against the first dtype), the JSON rewritten after every row and the budget checked between models.
 */
async function bench(a: BenchArgs): Promise<void> {
  const t0 = performance.now();
  const rows: (EncoderRow & { preset: string })[] = [];
  const skipped: { model: string; why: string }[] = [];
  const errors: { model: string; error: string }[] = [];
  for (const model of a.models) {
    if ((performance.now() - t0) / 1000 > a.budgetS) skipped.push({ model, why: `the ${a.budgetS} s budget was spent` });
    else
      try {
        const onRow = (r: EncoderRow) => {
          rows.push({ ...r, preset: model });
          writeJson(a.out, { device: a.device, rows, skipped, errors });
        };
        await runEncoderBench(
          {
            models: [model],
            dtypes: a.dtypes,
            threads: [a.threads],
            batches: a.batches,
            sizes: [],
            frames: [],
            repeat: a.repeat,
            warmup: a.warmup,
            dir: a.dir,
            noFlash: false,
            device: a.device,
            onRow,
          },
          log,
        );
      } catch (err) {
        errors.push({ model, error: err instanceof Error ? err.message : String(err) });
        log(`bench ${model} failed: ${errors.at(-1)!.error}`);
      }
    writeJson(a.out, { device: a.device, rows, skipped, errors });
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values: v } = parseArgs({
    args: rest,
    options: {
      device: { type: 'string', default: 'cuda:0' },
      out: { type: 'string' },
      tmp: { type: 'string' },
      dir: { type: 'string' },
      models: { type: 'string', default: 'vit-b16,vit-h14,vit-l16-video' },
      dtypes: { type: 'string', default: 'f16,f32' },
      batches: { type: 'string', default: '1,8,32' },
      repeat: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      threads: { type: 'string', default: '4' },
      'budget-s': { type: 'string', default: '240' },
    },
  });
  if (!v.out) throw new Error('--out is required');
  if (command === 'machine') await machine(v.out);
  else if (command === 'forge') {
    if (!v.dir) throw new Error('forge needs --dir (where the real-size models are forged)');
    forge(v.out, v.dir, list(v.models), list(v.dtypes));
  } else if (command === 'checks') {
    if (!v.tmp) throw new Error('checks needs --tmp (where the fixtures are converted)');
    mkdirSync(v.tmp, { recursive: true });
    return (await checks(v.device, v.out, v.tmp)) ? 0 : 1;
  } else if (command === 'bench') {
    if (!v.dir) throw new Error('bench needs --dir (where the real-size models are forged)');
    await bench({
      device: v.device,
      out: v.out,
      dir: v.dir,
      models: list(v.models),
      dtypes: list(v.dtypes),
      batches: list(v.batches).map((b) => positive('batches', b)),
      repeat: positive('repeat', v.repeat),
      warmup: Number(v.warmup),
      threads: positive('threads', v.threads),
      budgetS: positive('budget-s', v['budget-s']),
    });
  } else throw new Error(`unknown command '${command ?? ''}' (machine, checks, forge, bench)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`device-main: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
