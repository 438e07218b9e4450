// An index folder: index.sqlite (the rows, source of truth) and, for large collections, a usearch
// graph derived from it. One model's vectors per index; queries by another model are refused.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ApproxSettings, DEFAULT_APPROX, currentGraph, searchGraph } from './approx-index.js';
import { SearchError } from './errors.js';
import { describeModel, type IndexModel } from './model-identity.js';
import { type FileIdentity, type NewRow, type RowPlace, RowStore, type StoredRow, vectorOf } from './row-store.js';
import { dot, TopK, unit } from './top-k.js';

export const DB_FILE = 'index.sqlite';
/** The pooling of a text model's image vectors, in the space its text vectors are in. */
export const ALIGNED_POOL = 'aligned';
/** From this many rows on, 'auto' searches the approximate index. */
export const APPROX_MIN_ROWS = 50_000;

export type SearchMode = 'auto' | 'exact' | 'approx';

export interface Hit extends RowPlace {
  id: number;
  /** Cosine similarity. */
  score: number;
}

export interface IndexInfo {
  model: IndexModel;
  rows: number;
  files: number;
  dim: number;
  /** Bytes of every file of the index folder (the database, its WAL, the graph). */
  bytes: number;
}

export interface SearchOptions {
  k: number;
  mode?: SearchMode;
  /** Leave this row out of the results (a query by a stored row). */
  exclude?: number;
  approx?: ApproxSettings;
}

export class VectorIndex {
  readonly dir: string;
  readonly model: IndexModel;
  readonly #store: RowStore;
  readonly #file: string;
  /** Every row's vector in one matrix, for exact search, and the rows' generation it holds. */
  #matrix: { generation: number; ids: number[]; data: Float32Array } | null = null;
  /** The graph last brought up to date, the rows' generation it holds, and the settings it was opened with. */
  #graph: { generation: number; settings: ApproxSettings; graph: ReturnType<typeof currentGraph>['graph'] } | null = null;

  private constructor(dir: string, file: string, store: RowStore, model: IndexModel) {
    this.dir = dir;
    this.#file = file;
    this.#store = store;
    this.model = model;
  }

  /** Opens the index in `dir`, creating it for `model` when there is none; refuses another model's index. */
  static openOrCreate(dir: string, model: IndexModel): VectorIndex {
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new SearchError('index_missing', `--db ${dir}: that is a file; name a folder`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, DB_FILE);
    const { store, model: stored } = RowStore.open(file, model);
    const index = new VectorIndex(dir, file, store, stored);
    try {
      index.checkModel(model);
    } catch (err) {
      store.close();
      throw err;
    }
    return index;
  }

  /** Opens an existing index; refuses a folder without one, or a damaged file. */
  static open(dir: string): VectorIndex {
    const file = join(dir, DB_FILE);
    if (!existsSync(file)) throw new SearchError('index_missing', `--db ${dir}: no index there (jepa index add --db ${dir} -m MODEL ... makes one)`);
    const { store, model } = RowStore.open(file, null);
    return new VectorIndex(dir, file, store, model);
  }

  /** Refuses a model other than the index's, in one line. */
  checkModel(model: IndexModel): void {
    const m = this.model;
    if (model.digest !== m.digest || model.pool !== m.pool || model.dim !== m.dim)
      throw new SearchError('index_model', `${this.dir} holds vectors of ${describeModel(m)}; this query's model is ${describeModel(model)}`);
  }

  /**
   * Refuses a query by words (its flag or field is `field`) unless the vectors are a text model's
   * aligned ones: pool "aligned", which only a model with a text side (dino.txt) gives.
   */
  checkTextQuery(field: string): void {
    const m = this.model;
    if (m.pool !== ALIGNED_POOL)
      throw new SearchError(
        'index_text',
        `${field}: the index holds ${m.file}'s "${m.pool}" vectors, not a text model's aligned ones: words search only an index made by a dino.txt model (pool "${ALIGNED_POOL}")`,
        { param: field },
      );
  }

  /** The files indexed completely, with the identity they had. */
  completeFiles(): Map<string, { size: number; mtimeMs: number }> {
    return this.#store.completeFiles();
  }

  /** Every file path the index has rows or a record of. */
  knownPaths(): string[] {
    return this.#store.knownPaths();
  }

  /**
   * The files to embed (new, changed by size or mtime, or left unfinished by a killed run), in the
   * order given; the rows they had are dropped first, in one transaction.
   */
  pending(files: readonly FileIdentity[]): FileIdentity[] {
    const done = this.#store.completeFiles();
    const todo = files.filter((f) => {
      const had = done.get(f.path);
      return !had || had.size !== f.size || had.mtimeMs !== f.mtimeMs;
    });
    const known = new Set(this.#store.knownPaths());
    this.#store.forget(todo.filter((f) => known.has(f.path)).map((f) => f.path));
    return todo;
  }

  /** Drops these files' rows (before re-embedding them, or when they are gone). */
  forget(paths: readonly string[]): number {
    return this.#store.forget(paths);
  }

  /** One batch, in one transaction: rows (unit length is applied here) and the files they finish. */
  commit(rows: readonly NewRow[], finished: readonly FileIdentity[], started: readonly FileIdentity[] = []): void {
    for (const r of rows)
      if (r.vector.length !== this.model.dim)
        throw new SearchError('index_dimension', `a ${r.vector.length}-d vector for a ${this.model.dim}-d index`);
    this.#store.commit(
      rows.map((r) => ({ ...r, vector: unit(r.vector) })),
      finished,
      started,
    );
  }

  /** Drops the rows of files `exists` says are gone; returns the files and rows dropped. */
  prune(exists: (path: string) => boolean): { files: number; rows: number } {
    const gone = this.#store.knownPaths().filter((p) => !exists(p));
    return { files: gone.length, rows: this.#store.forget(gone) };
  }

  info(): IndexInfo {
    let bytes = 0;
    for (const name of readdirSync(this.dir)) {
      const s = statSync(join(this.dir, name));
      if (s.isFile()) bytes += s.size;
    }
    return { model: this.model, rows: this.#store.count(), files: this.#store.fileCount(), dim: this.model.dim, bytes };
  }

  row(id: number): StoredRow {
    const r = Number.isSafeInteger(id) && id > 0 ? this.#store.row(id, this.model.dim) : null;
    if (!r) throw new SearchError('row_unknown', `${this.dir} has no row ${id}`);
    return r;
  }

  /** Every row in id order. */
  rows(): Generator<StoredRow> {
    return this.#store.rows(this.model.dim);
  }

  /** Brings the approximate index up to date with the rows (built, extended or loaded). */
  approxIndex(settings: ApproxSettings = DEFAULT_APPROX, onProgress?: (added: number) => void) {
    const { generation } = this.#store.generation();
    const held = this.#graph;
    if (held?.generation === generation && held.settings.expansionSearch === settings.expansionSearch && held.settings.scalar === settings.scalar)
      return { graph: held.graph, rebuilt: false };
    const current = currentGraph(this.dir, this.#store, this.model.dim, settings, onProgress);
    this.#graph = { generation, settings, graph: current.graph };
    return current;
  }

  /** Every row's id and unit vector, [rows, dim] in id order (kept while the rows do not change). */
  matrix(): { ids: number[]; data: Float32Array } {
    const { generation } = this.#store.generation();
    if (this.#matrix?.generation === generation) return this.#matrix;
    const dim = this.model.dim;
    let data = new Float32Array(this.#store.count() * dim);
    const ids: number[] = [];
    for (const { id, blob } of this.#store.vectors()) {
      if ((ids.length + 1) * dim > data.length) {
        const grown = new Float32Array(Math.max(data.length * 2, dim * 1024));
        grown.set(data);
        data = grown;
      }
      const b = blob as Uint8Array;
      if (!(b instanceof Uint8Array) || b.byteLength !== dim * 4) vectorOf(blob, dim);
      // a view when SQLite's buffer is aligned, else a copy
      data.set(b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, dim) : vectorOf(b, dim), ids.length * dim);
      ids.push(id);
    }
    this.#matrix = { generation, ids, data: data.subarray(0, ids.length * dim) };
    return this.#matrix;
  }

  /** The k rows nearest `query` by cosine, best first. */
  search(query: Float32Array, options: SearchOptions): Hit[] {
    const { k } = options;
    if (!Number.isSafeInteger(k) || k < 1) throw new SearchError('top_k', `-k ${k}: expected a whole number >= 1`);
    if (query.length !== this.model.dim)
      throw new SearchError('query_kind', `the query is a ${query.length}-d vector; ${this.dir} holds ${this.model.dim}-d vectors`);
    const q = unit(query);
    const mode = options.mode ?? 'auto';
    const approx = mode === 'approx' || (mode === 'auto' && this.#store.count() >= APPROX_MIN_ROWS);
    const extra = options.exclude === undefined ? 0 : 1;
    const top = new TopK(k + extra);
    if (approx) {
      const { graph } = this.approxIndex(options.approx);
      // the graph's candidates, scored again on the stored vectors: exact scores, ties ordered by id
      const { ids } = searchGraph(graph, q, Math.max(2 * (k + extra), 20));
      for (const id of ids) {
        const r = this.#store.row(id, this.model.dim);
        if (r) top.offer(id, dot(q, r.vector));
      }
    } else {
      const { ids, data } = this.matrix();
      const dim = this.model.dim;
      for (let i = 0; i < ids.length; i++) top.offer(ids[i]!, dot(q, data.subarray(i * dim, (i + 1) * dim)));
    }
    const places = this.#store.places(top.ids);
    const hits: Hit[] = [];
    for (const [i, id] of top.ids.entries()) if (id !== options.exclude && hits.length < k) hits.push({ ...places.get(id)!, score: top.scores[i]! });
    return hits;
  }

  /**
   * Groups of rows whose cosine to another row of the group is at least `threshold` (connected
   * components of that relation), largest first, each sorted by id; rows without a neighbour are left out.
   */
  dedupe(threshold: number, options: { mode?: SearchMode; neighbours?: number } = {}): Hit[][] {
    if (!(threshold > -1 && threshold <= 1)) throw new SearchError('threshold', `--threshold ${threshold}: expected a cosine in (-1, 1]`);
    const dim = this.model.dim;
    const { ids, data } = this.matrix();
    const vecs = ids.map((_, i) => data.subarray(i * dim, (i + 1) * dim));
    const parent = ids.map((_, i) => i);
    const find = (i: number): number => {
      while (parent[i] !== i) {
        parent[i] = parent[parent[i]!]!;
        i = parent[i]!;
      }
      return i;
    };
    const join2 = (a: number, b: number) => {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    };
    const best = new Map<number, number>();
    const note = (i: number, s: number) => best.set(i, Math.max(best.get(i) ?? -2, s));
    const approx = options.mode === 'approx' || ((options.mode ?? 'auto') === 'auto' && ids.length >= APPROX_MIN_ROWS);
    if (approx) {
      const { graph } = this.approxIndex();
      const at = new Map(ids.map((id, i) => [id, i]));
      for (let i = 0; i < ids.length; i++) {
        const { ids: near } = searchGraph(graph, vecs[i]!, options.neighbours ?? 16);
        for (const id of near) {
          const j = at.get(id);
          if (j === undefined || j === i) continue;
          const s = dot(vecs[i]!, vecs[j]!);
          if (s >= threshold) {
            join2(i, j);
            note(i, s);
            note(j, s);
          }
        }
      }
    } else
      for (let i = 0; i < ids.length; i++)
        for (let j = i + 1; j < ids.length; j++) {
          const s = dot(vecs[i]!, vecs[j]!);
          if (s >= threshold) {
            join2(i, j);
            note(i, s);
            note(j, s);
          }
        }
    const groups = new Map<number, number[]>();
    for (let i = 0; i < ids.length; i++) {
      if (!best.has(i)) continue;
      const r = find(i);
      groups.set(r, [...(groups.get(r) ?? []), i]);
    }
    const places = this.#store.places([...groups.values()].flat().map((i) => ids[i]!));
    return [...groups.values()]
      .map((members) => members.map((i) => ({ ...places.get(ids[i]!)!, score: best.get(i)! })))
      .sort((a, b) => b.length - a.length || a[0]!.id - b[0]!.id);
  }

  /** Checks the database file's pages; throws index_corrupt. */
  check(): void {
    this.#store.check(this.#file);
  }

  close(): void {
    this.#store.close();
  }
}
