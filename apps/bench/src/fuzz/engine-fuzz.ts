// The engine fuzz campaign (`jepa-bench fuzz-engine`, `pnpm fuzz:engine`): deterministic random cases
// by seed, each built, written and run through the engine in the child; findings minimised by
// dropping mutations while the same kind of finding remains, and written as <kind>-<family>-<n>.gguf
// with the case and the outcome beside it as .json. `replay` runs kept files (the regression set).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GgufError, mulberry32 } from '@jepa/gguf';
import { buildCase, type EngineCase } from './engine-case.js';
import { EngineHarness, type FileOutcome, type HarnessOptions } from './engine-harness.js';
import { randomCase } from './engine-mutate.js';

export interface FuzzEngineOptions extends HarnessOptions {
  seed: number;
  seconds: number;
  /** Stop after this many cases, if sooner. */
  inputs?: number;
  /** Where findings are written. */
  out: string;
  log?: (line: string) => void;
}

export interface FuzzEngineStats {
  seed: number;
  inputs: number;
  seconds: number;
  /** Cases whose mutations the forge could not write (a type whose block does not divide a row). */
  unbuildable: number;
  /** Files whose tensors were re-derived from the mutated metadata. */
  derived: number;
  loaded: number;
  /** Files that ran every operation they declare. */
  ran: number;
  ops: Record<string, number>;
  /** Refusals by stage and code: `load GGUF_TENSOR_SHAPE`, `encode OVER_BUDGET`, ... */
  refused: Record<string, number>;
  findings: { kind: string; stage: string; file: string; detail: string }[];
  childStarts: number;
  peakRssMib: number;
  slowestMs: number;
}

type Outcome = FileOutcome & { ms: number };

const signature = (o: Outcome) => (o.status === 'finding' ? `${o.kind} ${o.stage}` : o.status);

async function runCase(h: EngineHarness, c: EngineCase, path: string): Promise<Outcome | null> {
  let bytes: Uint8Array;
  try {
    bytes = buildCase(c).bytes;
  } catch (e) {
    if (e instanceof GgufError || (e instanceof Error && e.message.startsWith('forge:'))) return null;
    throw e;
  }
  writeFileSync(path, bytes);
  return h.run({ path });
}

/** Drops mutations one at a time while the case still gives a finding of the same kind and stage. */
async function minimise(h: EngineHarness, c: EngineCase, first: Outcome, path: string): Promise<{ c: EngineCase; o: Outcome }> {
  let best = { c, o: first };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < best.c.mutations.length && best.c.mutations.length > 1; i++) {
      const smaller = { ...best.c, mutations: best.c.mutations.filter((_, j) => j !== i) };
      const o = await runCase(h, smaller, path);
      if (o && signature(o) === signature(first)) {
        best = { c: smaller, o };
        changed = true;
        break;
      }
    }
  }
  return best;
}

export async function fuzzEngine(opts: FuzzEngineOptions): Promise<FuzzEngineStats> {
  const log = opts.log ?? (() => {});
  const rng = mulberry32(opts.seed);
  const h = new EngineHarness(opts);
  const work = mkdtempSync(join(tmpdir(), 'jepa-fuzz-engine-'));
  const path = join(work, 'case.gguf');
  const stats: FuzzEngineStats = {
    seed: opts.seed,
    inputs: 0,
    seconds: 0,
    unbuildable: 0,
    derived: 0,
    loaded: 0,
    ran: 0,
    ops: {},
    refused: {},
    findings: [],
    childStarts: 0,
    peakRssMib: 0,
    slowestMs: 0,
  };
  const seen = new Map<string, number>();
  const t0 = performance.now();
  const deadline = t0 + opts.seconds * 1000;
  let lastLog = t0;
  try {
    while (performance.now() < deadline && stats.inputs < (opts.inputs ?? Infinity)) {
      const index = stats.inputs++;
      const c = randomCase(rng);
      let built: ReturnType<typeof buildCase>;
      try {
        built = buildCase(c);
      } catch (e) {
        if (e instanceof GgufError || (e instanceof Error && e.message.startsWith('forge:'))) {
          stats.unbuildable++;
          continue;
        }
        throw e;
      }
      if (built.tensors === 'derived') stats.derived++;
      writeFileSync(path, built.bytes);
      const o: Outcome = await h.run({ path });
      stats.slowestMs = Math.max(stats.slowestMs, o.ms);
      if (o.status === 'refused') {
        if (o.stage !== 'load') stats.loaded++;
        const k = `${o.stage} ${o.code}`;
        stats.refused[k] = (stats.refused[k] ?? 0) + 1;
      } else if (o.status === 'ran') {
        stats.loaded++;
        stats.ran++;
        for (const op of o.ops) stats.ops[op] = (stats.ops[op] ?? 0) + 1;
      } else {
        const sig = `${signature(o)} ${o.detail.split('\n')[0]}`;
        const n = (seen.get(sig) ?? 0) + 1;
        seen.set(sig, n);
        if (n > 3) {
          stats.findings.push({ kind: o.kind, stage: o.stage, file: '(a repeat, not kept)', detail: o.detail.split('\n')[0]! });
          continue;
        }
        const min = await minimise(h, c, o, path);
        mkdirSync(opts.out, { recursive: true });
        const base = join(opts.out, `${o.kind}-${c.family}-${opts.seed}-${index}`);
        writeFileSync(`${base}.gguf`, buildCase(min.c).bytes);
        writeFileSync(`${base}.json`, `${JSON.stringify({ seed: opts.seed, index, case: min.c, outcome: min.o }, null, 2)}\n`);
        stats.findings.push({ kind: o.kind, stage: o.stage, file: `${base}.gguf`, detail: o.detail.split('\n')[0]! });
        log(
          `finding: ${o.kind} at ${o.stage} (case ${index}, ${c.family}, ${min.c.mutations.length} mutation(s)) -> ${base}.gguf: ${o.detail.split('\n')[0]}`,
        );
      }
      const now = performance.now();
      if (now - lastLog > 30_000) {
        lastLog = now;
        log(`fuzz:engine: ${stats.inputs} cases in ${((now - t0) / 1000).toFixed(0)} s, ${stats.loaded} loaded, ${stats.findings.length} findings`);
      }
    }
  } finally {
    h.close();
    rmSync(work, { recursive: true, force: true });
  }
  stats.seconds = (performance.now() - t0) / 1000;
  stats.childStarts = h.restarts;
  stats.peakRssMib = h.peakRssMib;
  return stats;
}

export interface ReplayRow {
  file: string;
  outcome: Outcome;
}

/**
 * The files `replayFiles` runs: every .gguf of `dir`, and every .json with a case but no .gguf beside it
 * (a finding whose file is too big to keep, forged again from its case), by the .gguf name.
 */
export function replayNames(dir: string): string[] {
  const names = readdirSync(dir);
  const forged = names.filter((n) => n.endsWith('.json') && !names.includes(n.replace(/\.json$/, '.gguf'))).map((n) => n.replace(/\.json$/, '.gguf'));
  return [...names.filter((n) => n.endsWith('.gguf')), ...forged].sort();
}

/** Runs every file of `replayNames(dir)` through the engine in the child; a row per file. */
export async function replayFiles(dir: string, options: HarnessOptions = {}): Promise<ReplayRow[]> {
  const h = new EngineHarness(options);
  const work = mkdtempSync(join(tmpdir(), 'jepa-fuzz-replay-'));
  try {
    const rows: ReplayRow[] = [];
    for (const name of replayNames(dir)) {
      let path = join(dir, name);
      if (!existsSync(path)) {
        const kept = JSON.parse(readFileSync(path.replace(/\.gguf$/, '.json'), 'utf8')) as { case?: EngineCase };
        if (!kept.case) throw new Error(`${name.replace(/\.gguf$/, '.json')} has no case to forge the file from`);
        path = join(work, name);
        writeFileSync(path, buildCase(kept.case).bytes);
      }
      rows.push({ file: name, outcome: await h.run({ path }) });
      if (path.startsWith(work)) rmSync(path, { force: true });
    }
    return rows;
  } finally {
    h.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** One line of the campaign's result, and the refusals by stage and code. */
export function summary(s: FuzzEngineStats): string {
  const rate = s.inputs / Math.max(s.seconds, 1e-9);
  const ops = Object.entries(s.ops)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const top = Object.entries(s.refused)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  return (
    `fuzz:engine seed ${s.seed}: ${s.inputs} cases in ${s.seconds.toFixed(1)} s (${rate.toFixed(2)}/s), ${s.derived} with tensors re-derived, ` +
    `${s.unbuildable} unbuildable; ${s.loaded} loaded, ${s.ran} ran every operation (${ops || 'none'}); ` +
    `${s.findings.length} findings; ${s.childStarts} child start(s), peak child RSS ${s.peakRssMib.toFixed(0)} MiB, slowest case ${s.slowestMs.toFixed(0)} ms\n` +
    `refusals by stage and code: ${top || 'none'}`
  );
}
