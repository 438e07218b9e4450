// jepa-bench search: @jepa/search at scale on synthetic unit vectors. For each N: the rows committed
// to index.sqlite (batches of 10,000, one transaction each), the HNSW graph built from them, the size
// on disk, query latency (p50/p99, k) of the approximate and the exact search, and recall@k of the
// approximate results against exact top-k computed here in one pass over the stored rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApproxSettings, DEFAULT_APPROX, dot, GRAPH_SCALARS, TopK, unit, VectorIndex } from '@jepa/search';

export type SyntheticKind = 'random' | 'lowrank';

export interface SearchBenchOptions {
  sizes: number[];
  dim: number;
  kind: SyntheticKind;
  k: number;
  queries: number;
  /** Exact searches timed through VectorIndex.search (each reads every row). */
  exactQueries: number;
  approx: ApproxSettings;
  /** Search-time ef values measured on the one graph (default: approx.expansionSearch). */
  efs?: number[];
  dir?: string;
  keep?: boolean;
}

export interface SearchBenchRow {
  n: number;
  dim: number;
  kind: SyntheticKind;
  commitSeconds: number;
  buildSeconds: number;
  bytesOnDisk: number;
  approxP50Ms: number;
  approxP99Ms: number;
  exactP50Ms: number;
  recallAtK: number;
  settings: ApproxSettings;
}

/** Seeded (mulberry32) standard normals. */
function normals(seed: number): () => number {
  let s = seed >>> 0;
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/**
 * random: uniform on the sphere, no structure at all (the worst case for any graph index: every
 * point is nearly as far as every other); lowrank: a point of a 32-d Gaussian latent mapped into D by
 * one fixed random matrix, plus isotropic noise of 0.2 per coordinate, as embeddings of real images lie
 * near a low-dimensional set.
 */
export function syntheticVectors(kind: SyntheticKind, dim: number, seed: number): () => Float32Array {
  const g = normals(seed);
  const latent = 32;
  const map = kind === 'lowrank' ? Float32Array.from({ length: dim * latent }, () => g() / Math.sqrt(latent)) : null;
  const z = new Float32Array(latent);
  return () => {
    const v = new Float32Array(dim);
    if (map) {
      for (let j = 0; j < latent; j++) z[j] = g();
      for (let i = 0; i < dim; i++) {
        let s = 0;
        for (let j = 0; j < latent; j++) s += map[i * latent + j]! * z[j]!;
        v[i] = s + 0.2 * g();
      }
    } else for (let i = 0; i < dim; i++) v[i] = g();
    return unit(v);
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export function runSearchBench(o: SearchBenchOptions, log: (line: string) => void): SearchBenchRow[] {
  const rows: SearchBenchRow[] = [];
  for (const n of o.sizes) {
    const dir = mkdtempSync(join(o.dir ?? tmpdir(), `jepa-search-bench-${n}-`));
    try {
      const next = syntheticVectors(o.kind, o.dim, 42);
      const index = VectorIndex.openOrCreate(dir, { name: 'synthetic', file: 'none', digest: '0'.repeat(64), dim: o.dim, pool: 'none' });
      let t = performance.now();
      for (let start = 0; start < n; start += 10_000) {
        const batch = Array.from({ length: Math.min(10_000, n - start) }, (_, j) => ({ path: `v${start + j}`, vector: next() }));
        index.commit(batch, []);
        log(`N=${n}: ${start + batch.length} rows committed`);
      }
      const commitSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      let shown = 0;
      const { graph } = index.approxIndex(o.approx, (added) => {
        if (added - shown >= 50_000 || added === n) {
          shown = added;
          log(`N=${n}: graph ${added} of ${n} (${((performance.now() - t) / 1000).toFixed(0)} s)`);
        }
      });
      void graph;
      const buildSeconds = (performance.now() - t) / 1000;
      const bytesOnDisk = index.info().bytes;
      // queries from the same distribution, not in the index
      const queries = Array.from({ length: o.queries }, next);
      const truth = queries.map(() => new TopK(o.k));
      for (const r of index.rows()) for (const [qi, q] of queries.entries()) truth[qi]!.offer(r.id, dot(q, r.vector));
      log(`N=${n}: exact top-${o.k} of ${o.queries} queries computed`);
      const exactMs: number[] = [];
      for (const q of queries.slice(0, o.exactQueries)) {
        const t0 = performance.now();
        index.search(q, { k: o.k, mode: 'exact' });
        exactMs.push(performance.now() - t0);
      }
      for (const ef of o.efs ?? [o.approx.expansionSearch]) {
        const approx = { ...o.approx, expansionSearch: ef };
        index.search(queries[0]!, { k: o.k, mode: 'approx', approx }); // loads the graph with this ef
        const approxMs: number[] = [];
        let hit = 0;
        for (const [qi, q] of queries.entries()) {
          const t0 = performance.now();
          const hits = index.search(q, { k: o.k, mode: 'approx', approx });
          approxMs.push(performance.now() - t0);
          const want = new Set(truth[qi]!.ids);
          for (const h of hits) if (want.has(h.id)) hit++;
        }
        const row: SearchBenchRow = {
          n,
          dim: o.dim,
          kind: o.kind,
          commitSeconds,
          buildSeconds,
          bytesOnDisk,
          approxP50Ms: pct(approxMs, 50),
          approxP99Ms: pct(approxMs, 99),
          exactP50Ms: exactMs.length > 0 ? pct(exactMs, 50) : Number.NaN,
          recallAtK: hit / (o.queries * o.k),
          settings: approx,
        };
        log(JSON.stringify(row));
        rows.push(row);
      }
      index.close();
    } finally {
      if (!o.keep) rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function searchMarkdown(rows: SearchBenchRow[], k: number): string {
  const head = `| N | D | vectors | commit s | graph build s | size on disk MiB | ef | approx p50 ms | approx p99 ms | exact p50 ms | recall@${k} |\n|---|---|---|---|---|---|---|---|---|---|---|\n`;
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.n} | ${r.dim} | ${r.kind} | ${r.commitSeconds.toFixed(1)} | ${r.buildSeconds.toFixed(1)} | ${(r.bytesOnDisk / 2 ** 20).toFixed(0)} | ${r.settings.expansionSearch} | ${r.approxP50Ms.toFixed(2)} | ${r.approxP99Ms.toFixed(2)} | ${Number.isNaN(r.exactP50Ms) ? '-' : r.exactP50Ms.toFixed(0)} | ${r.recallAtK.toFixed(3)} |`,
      )
      .join('\n')
  );
}

export { DEFAULT_APPROX, GRAPH_SCALARS };
