// `jepa-bench pca`: the feature map's PCA on grids of patch features of real widths, the rule's block
// Krylov iteration (@jepa/graph's pcaRgb) against the full eigen-decomposition it replaced (the D × D
// covariance, or the n × n Gram matrix where D > n, formed, then every eigenpair by tred2/tql2:
// @jepa/graph's symmetricEigen), side by side
// in one run, with how far their axes and variances differ. (The server runs the map on a worker
// thread besides: packages/server/test/pca-thread.test.ts times this thread's timer meanwhile.)
import type { Command } from 'commander';
import { pcaRgb, symmetricEigen } from '@jepa/graph';
import { count, int, intList } from './cli-args.js';
import { machineInfo } from './machine.js';
import { median } from './stats.js';

interface Opts {
  grid: number[];
  dim: number[];
  repeat: number;
  exactRepeat: number;
  json?: boolean;
}

export interface PcaRow {
  tokens: number;
  dim: number;
  exactMs: number[];
  krylovMs: number[];
  /** max over the three axes of 1 − |cos|, and of the variances' difference over the largest. */
  worst: number;
}

/** Seeded features: 64 latent directions with scales falling as 1/√k, plus noise and an offset (a ViT's patch features are not low rank either). */
function features(n: number, D: number, seed: number): Float64Array {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
  const dirs = Array.from({ length: 64 }, () => Float64Array.from({ length: D }, rnd));
  const x = new Float64Array(n * D);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 64; k++) {
      const z = (3 / Math.sqrt(k + 1)) * rnd();
      const q = dirs[k]!;
      for (let d = 0; d < D; d++) x[i * D + d] += z * q[d]!;
    }
    for (let d = 0; d < D; d++) x[i * D + d] += 0.2 * rnd() + 1;
  }
  return x;
}

/** The rule before: every eigenpair of the D × D covariance (D ≤ n) or of the n × n Gram matrix (D > n, axes Xcᵀ·u normalised), the top three. */
function exactTop3(x: Float64Array, n: number, D: number): { axes: Float64Array; variances: number[] } {
  const mean = new Float64Array(D);
  for (let i = 0; i < n; i++) for (let d = 0; d < D; d++) mean[d] += x[i * D + d]! / n;
  const xc = new Float64Array(n * D);
  for (let i = 0; i < n; i++) for (let d = 0; d < D; d++) xc[i * D + d] = x[i * D + d]! - mean[d]!;
  const axes = new Float64Array(3 * D);
  if (D <= n) {
    const c = new Float64Array(D * D);
    for (let i = 0; i < n; i++)
      for (let a = 0; a < D; a++) {
        const va = xc[i * D + a]!;
        for (let b = a; b < D; b++) c[a * D + b] += va * xc[i * D + b]!;
      }
    for (let a = 0; a < D; a++)
      for (let b = a; b < D; b++) {
        c[a * D + b] = c[a * D + b]! / (n - 1);
        c[b * D + a] = c[a * D + b]!;
      }
    const { values, vectors } = symmetricEigen(c, D);
    for (let k = 0; k < 3; k++) for (let d = 0; d < D; d++) axes[k * D + d] = vectors[d * D + (D - 1 - k)]!;
    return { axes, variances: [0, 1, 2].map((k) => values[D - 1 - k]!) };
  }
  const g = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let d = 0; d < D; d++) s += xc[i * D + d]! * xc[j * D + d]!;
      g[i * n + j] = s / (n - 1);
      g[j * n + i] = s / (n - 1);
    }
  const { values, vectors } = symmetricEigen(g, n);
  for (let k = 0; k < 3; k++) {
    let norm = 0;
    for (let d = 0; d < D; d++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += xc[i * D + d]! * vectors[i * n + (n - 1 - k)]!;
      axes[k * D + d] = s;
      norm += s * s;
    }
    for (let d = 0; d < D; d++) axes[k * D + d] = axes[k * D + d]! / Math.sqrt(norm);
  }
  return { axes, variances: [0, 1, 2].map((k) => values[n - 1 - k]!) };
}

function timed<T>(f: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
}

export function runPcaBench(o: Opts, log: (line: string) => void): PcaRow[] {
  const rows: PcaRow[] = [];
  for (const side of o.grid)
    for (const D of o.dim) {
      const n = side * side;
      const x = features(n, D, side * 1000 + D);
      const exactMs: number[] = [];
      const krylovMs: number[] = [];
      let worst = 0;
      // alternating, so both see the same load
      for (let r = 0; r < Math.max(o.repeat, o.exactRepeat); r++) {
        const k = timed(() => pcaRgb(x, side, side, D));
        if (r < o.repeat) krylovMs.push(k.ms);
        if (r < o.exactRepeat) {
          const e = timed(() => exactTop3(x, n, D));
          exactMs.push(e.ms);
          for (let j = 0; j < 3; j++) {
            let dot = 0;
            for (let d = 0; d < D; d++) dot += k.value.axes[j * D + d]! * e.value.axes[j * D + d]!;
            worst = Math.max(worst, 1 - Math.abs(dot), Math.abs(k.value.variances[j]! - e.value.variances[j]!) / e.value.variances[0]!);
          }
        }
      }
      const row = { tokens: n, dim: D, exactMs, krylovMs, worst };
      log(
        `${side}x${side} tokens x ${D}: full decomposition ${median(exactMs).toFixed(0)} ms, block Krylov ${median(krylovMs).toFixed(0)} ms, worst ${worst.toExponential(1)}`,
      );
      rows.push(row);
    }
  return rows;
}

export function pcaMarkdown(rows: PcaRow[]): string {
  const lines = [
    '| patch tokens × width | full decomposition (before), median | block Krylov (now), median | ratio | worst axis / variance difference |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const e = median(r.exactMs);
    const k = median(r.krylovMs);
    lines.push(
      `| ${r.tokens} × ${r.dim} | ${e.toFixed(0)} ms (${r.exactMs.map((t) => t.toFixed(0)).join(', ')}) | ${k.toFixed(0)} ms (${r.krylovMs.map((t) => t.toFixed(0)).join(', ')}) | ${(e / k).toFixed(1)}× | ${r.worst.toExponential(1)} |`,
    );
  }
  return lines.join('\n');
}

export function registerPcaBench(program: Command): void {
  program
    .command('pca')
    .description("the feature map's PCA: the block Krylov iteration against the full eigen-decomposition it replaced")
    .option('--grid <list>', 'grid sides (tokens = side²)', intList, [37, 64])
    .option('--dim <list>', 'feature widths', intList, [768, 1024])
    .option('-r, --repeat <n>', 'timed runs of the block Krylov PCA', int, 5)
    .option('--exact-repeat <n>', 'timed runs of the full decomposition (seconds each at 1024 wide)', count, 3)
    .option('--json', 'print the report as JSON')
    .action((o: Opts) => {
      const rows = runPcaBench(o, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(1);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${pcaMarkdown(rows)}\n`);
    });
}
