// The same encoder bench under several environments (builds of the addon, CPU levels, kernel
// switches): one child process per variant and round, in a rotating order, so that all see the same
// machine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EncoderRow } from './encoder-bench.js';
import { median } from './stats.js';

export interface Variant {
  label: string;
  env: NodeJS.ProcessEnv;
}

export interface VariantsBenchOptions {
  models: string[];
  dtypes: string[];
  threads: number;
  repeat: number;
  rounds: number;
  dir: string;
}

export interface VariantRow {
  variant: string;
  /** The build, ggml CPU variant and own-kernel level, as the child reported them. */
  build: string;
  model: string;
  dtype: string;
  /** Each round's median ms per image. */
  rounds: number[];
  msPerItem: number;
  /** msPerItem over the first variant's, same model and dtype. */
  ratio: number;
}

const benchMain = fileURLToPath(new URL('./main.js', import.meta.url));

interface ChildReport {
  machine: { build: { portable?: boolean; nativeCpu: boolean; cpuVariant?: string; cpuLevel?: string } };
  rows: EncoderRow[];
}

function runChild(v: Variant, o: VariantsBenchOptions): Promise<ChildReport> {
  const args = [benchMain, 'encoder', '-m', o.models.join(','), '--dtype', o.dtypes.join(','), '-t', String(o.threads), '-r', String(o.repeat)];
  args.push('--dir', o.dir, '--json');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...v.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out) as ChildReport) : fail(new Error(`jepa-bench encoder (${v.label}) exited ${code}:\n${err.slice(-2000)}`)),
    );
  });
}

function buildName(report: ChildReport): string {
  const b = report.machine.build;
  const build = b.portable ? `portable (${b.cpuVariant})` : b.nativeCpu ? '-march=native' : 'generic';
  return b.cpuLevel ? `${build}, own kernels ${b.cpuLevel}` : build;
}

export async function runVariantsBench(variants: Variant[], o: VariantsBenchOptions, log: (s: string) => void): Promise<VariantRow[]> {
  const samples = new Map<string, number[]>();
  const builds = new Map<string, string>();
  for (let round = 0; round < o.rounds; round++) {
    // rotate who goes first, so no variant always runs on a machine another has just warmed
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      const report = await runChild(v, o);
      builds.set(v.label, buildName(report));
      for (const r of report.rows) {
        const key = `${v.label}\u0000${r.model}\u0000${r.dtype}`;
        samples.set(key, [...(samples.get(key) ?? []), r.msPerItem]);
        log(`round ${round + 1}/${o.rounds} ${v.label} ${r.model} ${r.dtype}: ${r.msPerItem.toFixed(1)} ms/item`);
      }
    }
  }
  const rows: VariantRow[] = [];
  for (const v of variants)
    for (const [key, rounds] of samples) {
      const [label, model, dtype] = key.split('\u0000') as [string, string, string];
      if (label === v.label) rows.push({ variant: label, build: builds.get(label)!, model, dtype, rounds, msPerItem: median(rounds), ratio: NaN });
    }
  for (const r of rows) {
    const base = rows.find((b) => b.variant === variants[0]!.label && b.model === r.model && b.dtype === r.dtype);
    r.ratio = base ? r.msPerItem / base.msPerItem : NaN;
  }
  return rows;
}

export function variantsMarkdown(rows: VariantRow[]): string {
  const lines = [
    '| variant | build | model | dtype | ms/image, median of rounds | each round | vs the first variant |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.variant} | ${r.build} | ${r.model} | ${r.dtype} | ${r.msPerItem.toFixed(1)} | ${r.rounds.map((x) => x.toFixed(1)).join(', ')} | ${r.ratio.toFixed(3)}× |`,
    );
  }
  return lines.join('\n');
}
