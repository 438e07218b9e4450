// The approximate index: a usearch HNSW graph over the rows' unit vectors, derived from the SQLite rows
// and never ahead of them. Its file is named after the rows' generation it holds
// (hnsw-g<generation>-m<max id>.usearch, written to a temporary name and renamed), so a file of
// another generation is stale by its name alone, and a crash can at worst leave a stale file behind.
// A stale graph is brought up to date by adding the rows after its max id when no row was deleted
// since its generation, and rebuilt from the rows otherwise.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import usearch from 'usearch';
import type { RowStore } from './row-store.js';
import { vectorOf } from './row-store.js';

const { Index, MetricKind, ScalarKind } = usearch;
type UIndex = InstanceType<typeof Index>;

/** HNSW settings: measured in docs/search.md (jepa-bench search). */
export interface ApproxSettings {
  /** Graph degree (M). */
  connectivity: number;
  /** Candidates while inserting (efConstruction). */
  expansionAdd: number;
  /** Candidates while searching (ef). */
  expansionSearch: number;
  /** Threads for building (0: usearch's choice). */
  threads: number;
  /**
   * How the graph stores its copy of the vectors; candidates are scored again on the stored f32 rows. i8:
   * at 10⁶ rows recall@10 0.980 at ef 512 with p50 8.5 ms, against 0.979 and 13.8 ms for f32 (docs/search.md).
   */
  scalar: GraphScalar;
}

export type GraphScalar = 'f32' | 'f16' | 'i8';
export const GRAPH_SCALARS: readonly GraphScalar[] = ['f32', 'f16', 'i8'];

export const DEFAULT_APPROX: ApproxSettings = { connectivity: 16, expansionAdd: 64, expansionSearch: 512, threads: 0, scalar: 'i8' };

const NAME = /^hnsw-g(\d+)-m(\d+)(?:-(f16|i8))?\.usearch$/;

interface GraphFile {
  name: string;
  generation: number;
  maxId: number;
  scalar: GraphScalar;
}

function graphFiles(dir: string): GraphFile[] {
  return readdirSync(dir)
    .map((name) => ({ name, m: NAME.exec(name) }))
    .filter((f) => f.m !== null)
    .map((f) => ({ name: f.name, generation: Number(f.m![1]), maxId: Number(f.m![2]), scalar: (f.m![3] ?? 'f32') as GraphScalar }))
    .sort((a, b) => b.generation - a.generation);
}

function graphName(generation: number, maxId: number, scalar: GraphScalar): string {
  return `hnsw-g${generation}-m${maxId}${scalar === 'f32' ? '' : `-${scalar}`}.usearch`;
}

const SCALAR_KIND = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;

function newGraph(dim: number, s: ApproxSettings): UIndex {
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: SCALAR_KIND[s.scalar],
    connectivity: s.connectivity,
    expansion_add: s.expansionAdd,
    expansion_search: s.expansionSearch,
    multi: false,
  });
}

/** Adds the rows after `after` to the graph, `chunk` at a time; returns the last id added. */
function addRows(graph: UIndex, store: RowStore, dim: number, after: number, threads: number, onProgress?: (added: number) => void): number {
  const chunk = 4096;
  let keys: bigint[] = [];
  let data = new Float32Array(chunk * dim);
  let last = after;
  let added = 0;
  const flush = () => {
    if (keys.length === 0) return;
    graph.add(BigUint64Array.from(keys), data.subarray(0, keys.length * dim), threads);
    added += keys.length;
    onProgress?.(added);
    keys = [];
    data = new Float32Array(chunk * dim);
  };
  for (const { id, blob } of store.vectors(after)) {
    data.set(vectorOf(blob, dim), keys.length * dim);
    keys.push(BigInt(id));
    last = id;
    if (keys.length === chunk) flush();
  }
  flush();
  return last;
}

/** The graph for the store's current generation: loaded, brought up to date or built, and saved. */
export function currentGraph(
  dir: string,
  store: RowStore,
  dim: number,
  settings: ApproxSettings = DEFAULT_APPROX,
  onProgress?: (added: number) => void,
): { graph: UIndex; rebuilt: boolean } {
  const { generation, deleteGeneration } = store.generation();
  // a graph of another scalar kind is of no use: it is rebuilt, and removed once the new one is saved
  const files = graphFiles(dir).filter((f) => f.scalar === settings.scalar);
  const current = files.find((f) => f.generation === generation);
  const graph = newGraph(dim, settings);
  if (current) {
    try {
      graph.load(join(dir, current.name));
      if (graph.size() === store.count()) return { graph, rebuilt: false };
    } catch {}
  }
  // a graph from before, with only additions since: add the rows after its max id
  const base = files.find((f) => f.generation < generation && f.generation >= deleteGeneration);
  let from = 0;
  let g = graph;
  if (base) {
    try {
      g = newGraph(dim, settings);
      g.load(join(dir, base.name));
      from = base.maxId;
    } catch {
      g = newGraph(dim, settings);
      from = 0;
    }
  } else g = newGraph(dim, settings);
  const maxId = addRows(g, store, dim, from, settings.threads, onProgress);
  if (g.size() !== store.count()) {
    // the base did not match the rows after all: build from nothing
    g = newGraph(dim, settings);
    addRows(g, store, dim, 0, settings.threads, onProgress);
  }
  const name = graphName(generation, maxId, settings.scalar);
  const tmp = join(dir, `${name}.tmp-${process.pid}`);
  g.save(tmp);
  renameSync(tmp, join(dir, name));
  for (const f of graphFiles(dir)) if (f.name !== name) rmSync(join(dir, f.name), { force: true });
  return { graph: g, rebuilt: true };
}

/** The graph's `n` nearest keys to `query` (a unit vector), with cosine similarity. */
export function searchGraph(graph: UIndex, query: Float32Array, n: number): { ids: number[]; scores: number[] } {
  const m = graph.search(query, n, 1);
  const ids: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i < m.keys.length; i++) {
    ids.push(Number(m.keys[i]));
    scores.push(1 - m.distances[i]!);
  }
  return { ids, scores };
}

/** Graph files in the folder (for info's size on disk). */
export function graphFileNames(dir: string): string[] {
  return graphFiles(dir).map((f) => f.name);
}
