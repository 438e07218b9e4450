// jepa-bench text-search: a query by words end to end through `jepa search --text`, as a user runs it
// (a process per query: start-up, the model's header and text side, the tokenizer, the text graph, the
// search), on an index of N rows with the model's identity and pool "aligned". The rows are synthetic
// (search-bench's low-rank unit vectors): the vectors' values do not change how long a search takes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { ALIGNED_POOL, DEFAULT_APPROX, modelIdentity, VectorIndex } from '@jepa/search';
import { ModelSession } from '@jepa/session';
import { cliMain } from './bins.js';
import { syntheticVectors } from './search-bench.js';
import { median } from './stats.js';

export interface TextSearchOptions {
  model: string;
  rows: number;
  text: string;
  runs: number;
  warmup: number;
  threads: number;
  dir?: string;
}

export interface TextSearchReport {
  rows: number;
  dim: number;
  text: string;
  wallMs: number[];
  p50Ms: number;
  p90Ms: number;
  /** In this process, p50 of each step: the model loaded (ModelSession.load), the words embedded (embedText), the index searched. */
  inProcess: { loadMs: number; embedMs: number; searchMs: number };
}

/** What a query costs without the process around it: each step's p50 over the runs, the index opened once (as a server holds it). */
async function stepsInProcess(o: TextSearchOptions, dir: string): Promise<TextSearchReport['inProcess']> {
  const load: number[] = [];
  const embed: number[] = [];
  const search: number[] = [];
  const index = VectorIndex.open(dir);
  try {
    for (let i = 0; i < o.warmup + o.runs; i++) {
      let t = performance.now();
      const session = await ModelSession.load(o.model, { threads: o.threads });
      const loaded = performance.now() - t;
      try {
        t = performance.now();
        const [q] = await session.embedText([o.text], { normalize: true });
        const embedded = performance.now() - t;
        t = performance.now();
        index.search(q!.values, { k: 10 });
        const searched = performance.now() - t;
        if (i >= o.warmup) {
          load.push(loaded);
          embed.push(embedded);
          search.push(searched);
        }
      } finally {
        await session.dispose();
      }
    }
  } finally {
    index.close();
  }
  return { loadMs: median(load), embedMs: median(embed), searchMs: median(search) };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export async function runTextSearchBench(o: TextSearchOptions, log: (line: string) => void): Promise<TextSearchReport> {
  const spec = loadModelSpec(o.model);
  if (!spec.text) throw new Error(`--model ${o.model}: ${spec.name} has no text side (give a dino.txt GGUF)`);
  const dim = spec.text.outDim;
  const dir = mkdtempSync(join(o.dir ?? tmpdir(), 'jepa-text-search-bench-'));
  try {
    const index = VectorIndex.openOrCreate(dir, modelIdentity(o.model, spec.name, dim, ALIGNED_POOL));
    const next = syntheticVectors('lowrank', dim, 42);
    for (let start = 0; start < o.rows; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, o.rows - start) }, (_, j) => ({ path: `/photos/v${start + j}.jpg`, vector: next() }));
      index.commit(batch, []);
    }
    // the approximate graph a user's first search leaves on disk (from 50,000 rows on)
    if (o.rows >= 50_000) index.approxIndex(DEFAULT_APPROX);
    index.close();
    log(`index: ${o.rows} rows of ${dim}-d, pool ${ALIGNED_POOL}`);
    const cli = cliMain();
    const wallMs: number[] = [];
    for (let i = 0; i < o.warmup + o.runs; i++) {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [cli, 'search', '--db', dir, '--text', o.text, '-k', '10', '-t', String(o.threads)], {
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`jepa search --text failed: ${r.stderr.trim()}`);
      if (i >= o.warmup) wallMs.push(ms);
    }
    const inProcess = await stepsInProcess(o, dir);
    return { rows: o.rows, dim, text: o.text, wallMs, p50Ms: median(wallMs), p90Ms: pct(wallMs, 90), inProcess };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
