// The same encoder bench under several builds of the addon (the portable one against -march=native):
// one child process per build and round, in a rotating order, so that both see the same machine.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EncoderRow } from './encoder-bench.js';
import { median } from './stats.js';

export interface AddonsBenchOptions {
  addons: string[];
  models: string[];
  dtypes: string[];
  threads: number;
  repeat: number;
  rounds: number;
  dir: string;
}

export interface AddonsRow {
  addon: string;
  /** portable, native or generic, and the ggml CPU variant, as the child reported it. */
  build: string;
  model: string;
  dtype: string;
  /** Each round's median ms per image. */
  rounds: number[];
  msPerItem: number;
  /** msPerItem over the first addon's, same model and dtype. */
  ratio: number;
}

const benchMain = fileURLToPath(new URL('./main.js', import.meta.url));

interface ChildReport {
  machine: { build: { portable?: boolean; nativeCpu: boolean; cpuVariant?: string } };
  rows: EncoderRow[];
}

function runChild(addon: string, o: AddonsBenchOptions): Promise<ChildReport> {
  const args = [
    benchMain,
    'encoder',
    '-m',
    o.models.join(','),
    '--dtype',
    o.dtypes.join(','),
    '-t',
    String(o.threads),
    '-r',
    String(o.repeat),
    '--dir',
    o.dir,
    '--json',
  ];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, JEPA_ADDON: addon }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out) as ChildReport) : fail(new Error(`jepa-bench encoder with ${addon} exited ${code}:\n${err.slice(-2000)}`)),
    );
  });
}

function buildName(report: ChildReport): string {
  const b = report.machine.build;
  return b.portable ? `portable (${b.cpuVariant})` : b.nativeCpu ? '-march=native' : 'generic';
}

export async function runAddonsBench(options: AddonsBenchOptions, log: (s: string) => void): Promise<AddonsRow[]> {
  // JEPA_ADDON is handed to require(), which needs an absolute path
  const o = { ...options, addons: options.addons.map((a) => resolve(a)) };
  for (const a of o.addons) if (!existsSync(a)) throw new Error(`no addon at ${a}`);
  const samples = new Map<string, number[]>();
  const builds = new Map<string, string>();
  for (let round = 0; round < o.rounds; round++) {
    // rotate who goes first, so neither build always runs on a machine the other has just warmed
    const order = o.addons.map((_, i) => o.addons[(i + round) % o.addons.length]!);
    for (const addon of order) {
      const report = await runChild(addon, o);
      builds.set(addon, buildName(report));
      for (const r of report.rows) {
        const key = `${addon}\u0000${r.model}\u0000${r.dtype}`;
        samples.set(key, [...(samples.get(key) ?? []), r.msPerItem]);
        log(`round ${round + 1}/${o.rounds} ${buildName(report)} ${r.model} ${r.dtype}: ${r.msPerItem.toFixed(1)} ms/item`);
      }
    }
  }
  const rows: AddonsRow[] = [];
  for (const [key, rounds] of samples) {
    const [addon, model, dtype] = key.split('\u0000') as [string, string, string];
    rows.push({ addon, build: builds.get(addon)!, model, dtype, rounds, msPerItem: median(rounds), ratio: NaN });
  }
  for (const r of rows) {
    const base = rows.find((b) => b.addon === o.addons[0] && b.model === r.model && b.dtype === r.dtype);
    r.ratio = base ? r.msPerItem / base.msPerItem : NaN;
  }
  return rows;
}

export function addonsMarkdown(rows: AddonsRow[]): string {
  const lines = ['| build | model | dtype | ms/image, median of rounds | each round | vs the first build |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    lines.push(
      `| ${r.build} | ${r.model} | ${r.dtype} | ${r.msPerItem.toFixed(1)} | ${r.rounds.map((x) => x.toFixed(1)).join(', ')} | ${r.ratio.toFixed(3)}× |`,
    );
  }
  return lines.join('\n');
}
