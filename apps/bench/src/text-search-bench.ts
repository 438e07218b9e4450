// jepa-bench text-search: a query by words end to end, on an index of N rows with the model's identity
// and pool "aligned", three ways in one run: `jepa search --text` as a one-off command (a process per
// query: start-up, the model's header and text side, the tokenizer, the text graph, the search); one
// `jepa search --texts -` fed the queries a line at a time; POST /v1/search to `jepa serve --index`. The
// queries are a list of different short phrases, cycled. The rows are synthetic (search-bench's
// low-rank unit vectors): the vectors' values do not change how long a search takes.
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
import { type HeldOptions, serveTimes, stdinSessionTimes } from './text-search-held.js';

/** Short phrases of the kind people search photos with, different words and lengths. */
export const DEFAULT_QUERIES: readonly string[] = [
  'a red car parked at night',
  'a dog running on the beach',
  'two people talking in a kitchen',
  'snow on a mountain road',
  'a cat asleep on the sofa',
  'children playing football',
  'a bowl of fruit',
  'a city street in the rain',
  'someone falling off a bike',
  'a boat on a calm lake',
  'a birthday cake with candles',
  'an old man reading a newspaper',
  'a crowded train station',
  'sunset over the ocean',
  'a bird on a branch',
  'a woman riding a horse',
  'fireworks above a bridge',
  'a laptop on a wooden desk',
  'a plate of pasta',
  'a tent in the forest at dawn',
];

export interface TextSearchOptions {
  model: string;
  rows: number;
  /** The queries, cycled by every way of asking. */
  queries: readonly string[];
  runs: number;
  warmup: number;
  threads: number;
  dir?: string;
}

/** Per-query wall times of one way of asking, ms, and their p50 and p90. */
export interface QueryTimes {
  ms: number[];
  p50: number;
  p90: number;
}

export interface TextSearchReport {
  rows: number;
  dim: number;
  queries: number;
  /** `jepa search --text`, a process per query: from spawning it to its exit. */
  process: QueryTimes;
  /** One `jepa search --texts -`: from writing a line to reading its last hit, after warmup queries. */
  stdin: QueryTimes;
  /** POST /v1/search {text, k} to `jepa serve --index`, after warmup queries. */
  serve: QueryTimes;
  /** In this process, p50 of each step (the first query): the model loaded (ModelSession.load), the words embedded (embedText), the index searched. */
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
        const [q] = await session.embedText([o.queries[0]!], { normalize: true });
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

const times = (ms: number[]): QueryTimes => ({ ms, p50: median(ms), p90: pct(ms, 90) });

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
      const text = o.queries[i % o.queries.length]!;
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [cli, 'search', '--db', dir, '--text', text, '-k', '10', '-t', String(o.threads)], {
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`jepa search --text failed: ${r.stderr.trim()}`);
      if (i >= o.warmup) wallMs.push(ms);
    }
    log(`a process per query: p50 ${median(wallMs).toFixed(1)} ms`);
    if (o.runs > o.queries.length)
      log(`${o.runs} runs of ${o.queries.length} queries: the repeats may be answered from jepa serve's text-vector cache`);
    // a held process's first query pays its load: at least one untimed
    const held: HeldOptions = {
      cli,
      model: o.model,
      dir,
      queries: o.queries,
      runs: o.runs,
      warmup: Math.max(1, o.warmup),
      threads: o.threads,
      k: 10,
      hits: Math.min(10, o.rows),
    };
    const stdin = await stdinSessionTimes(held);
    log(`jepa search --texts -: p50 ${median(stdin).toFixed(1)} ms`);
    const served = await serveTimes(held, log);
    log(`POST /v1/search: p50 ${median(served).toFixed(1)} ms`);
    const inProcess = await stepsInProcess(o, dir);
    return { rows: o.rows, dim, queries: o.queries.length, process: times(wallMs), stdin: times(stdin), serve: times(served), inProcess };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
