// The source of truth: one SQLite file (WAL, one transaction per batch) holding the model's identity,
// each indexed file's identity (path, size, mtime) and every row with its unit vector as a BLOB.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { SearchError } from './errors.js';
import type { IndexModel } from './model-identity.js';

export const FORMAT = 'jepa-search-1';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, complete INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rows (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,
  win INTEGER,
  start_s REAL,
  end_s REAL,
  vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS rows_path ON rows(path);
`;

/** A file as --resume compares it. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Where a row's vector came from: a file, and for a window of a video its number and times. */
export interface RowPlace {
  path: string;
  window?: number | undefined;
  startS?: number | undefined;
  endS?: number | undefined;
}

export interface NewRow extends RowPlace {
  vector: Float32Array;
}

export interface StoredRow extends RowPlace {
  id: number;
  vector: Float32Array;
}

const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));

export function placeOf(r: Record<string, unknown>): RowPlace & { id: number } {
  const place: RowPlace & { id: number } = { id: Number(r.id), path: String(r.path) };
  if (r.win !== null && r.win !== undefined) place.window = Number(r.win);
  if (r.start_s !== null && r.start_s !== undefined) place.startS = num(r.start_s);
  if (r.end_s !== null && r.end_s !== undefined) place.endS = num(r.end_s);
  return place;
}

export function vectorOf(blob: unknown, dim: number): Float32Array {
  const b = blob as Uint8Array;
  if (!(b instanceof Uint8Array) || b.byteLength !== dim * 4)
    throw new SearchError('index_corrupt', `a stored vector is ${(b as Uint8Array)?.byteLength ?? 0} bytes, not ${dim * 4}`);
  // copied: SQLite's buffer is not guaranteed 4-byte aligned
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

export class RowStore {
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #markFile: StatementSync;
  readonly #getRow: StatementSync;
  readonly #getPlace: StatementSync;
  readonly #getMeta: StatementSync;

  private constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insert = db.prepare('INSERT INTO rows (path, win, start_s, end_s, vector) VALUES (?, ?, ?, ?, ?)');
    this.#markFile = db.prepare('INSERT OR REPLACE INTO files (path, size, mtime_ms, complete) VALUES (?, ?, ?, ?)');
    this.#getRow = db.prepare('SELECT id, path, win, start_s, end_s, vector FROM rows WHERE id = ?');
    this.#getPlace = db.prepare('SELECT id, path, win, start_s, end_s FROM rows WHERE id = ?');
    this.#getMeta = db.prepare('SELECT key, value FROM meta');
  }

  /** Opens `file`; creates it (with `model`) when `model` is given and the file is new. */
  static open(file: string, model: IndexModel | null): { store: RowStore; model: IndexModel } {
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(file, { timeout: 10_000 });
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
      db.exec(SCHEMA);
    } catch (err) {
      throw new SearchError('index_corrupt', `${file}: not a readable index (${sqliteReason(err)})`, { cause: err });
    }
    const store = new RowStore(db);
    try {
      const stored = store.#meta();
      if (stored.size === 0) {
        if (model === null) throw new SearchError('index_missing', `${file}: an empty index (no model); add to it first`);
        store.#transaction(() => {
          const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
          put.run('format', FORMAT);
          put.run('model', JSON.stringify(model));
          put.run('generation', '0');
          put.run('delete_generation', '0');
        });
        return { store, model };
      }
      if (stored.get('format') !== FORMAT)
        throw new SearchError('index_corrupt', `${file}: not a jepa index (format ${stored.get('format') ?? 'missing'})`);
      return { store, model: parseModel(file, stored.get('model')) };
    } catch (err) {
      db.close();
      throw err;
    }
  }

  #meta(): Map<string, string> {
    return new Map(this.#getMeta.all().map((r) => [String(r.key), String(r.value)]));
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const out = work();
      this.#db.exec('COMMIT');
      return out;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  #bump(deleted: boolean): void {
    this.#db.exec("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'");
    if (deleted) this.#db.exec("UPDATE meta SET value = (SELECT value FROM meta WHERE key = 'generation') WHERE key = 'delete_generation'");
  }

  /** Increments on every commit that changed rows; the approximate index is valid for one generation. */
  generation(): { generation: number; deleteGeneration: number } {
    const m = this.#meta();
    return { generation: Number(m.get('generation')), deleteGeneration: Number(m.get('delete_generation')) };
  }

  /** The files whose rows are all in (their identity as indexed). */
  completeFiles(): Map<string, { size: number; mtimeMs: number }> {
    const out = new Map<string, { size: number; mtimeMs: number }>();
    for (const r of this.#db.prepare('SELECT path, size, mtime_ms FROM files WHERE complete = 1').iterate())
      out.set(String(r.path), { size: Number(r.size), mtimeMs: Number(r.mtime_ms) });
    return out;
  }

  /** Every file the index knows, complete or not. */
  knownPaths(): string[] {
    const paths = new Set<string>();
    for (const r of this.#db.prepare('SELECT path FROM files UNION SELECT DISTINCT path FROM rows').iterate()) paths.add(String(r.path));
    return [...paths];
  }

  /** Drops the rows and the record of these files, in one transaction; returns the rows dropped. */
  forget(paths: readonly string[]): number {
    if (paths.length === 0) return 0;
    return this.#transaction(() => {
      const delRows = this.#db.prepare('DELETE FROM rows WHERE path = ?');
      const delFile = this.#db.prepare('DELETE FROM files WHERE path = ?');
      let dropped = 0;
      for (const p of paths) {
        dropped += Number(delRows.run(p).changes);
        delFile.run(p);
      }
      this.#bump(dropped > 0);
      return dropped;
    });
  }

  /** One batch in one transaction: its rows, and the files it finishes marked complete with their identity. */
  commit(rows: readonly NewRow[], finished: readonly FileIdentity[], started: readonly FileIdentity[] = []): void {
    this.#transaction(() => {
      for (const f of started) this.#markFile.run(f.path, f.size, f.mtimeMs, 0);
      for (const r of rows)
        this.#insert.run(
          r.path,
          r.window ?? null,
          r.startS ?? null,
          r.endS ?? null,
          new Uint8Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength),
        );
      for (const f of finished) this.#markFile.run(f.path, f.size, f.mtimeMs, 1);
      if (rows.length > 0) this.#bump(false);
    });
  }

  count(): number {
    return Number(this.#db.prepare('SELECT count(*) AS n FROM rows').get()!.n);
  }

  fileCount(): number {
    return Number(this.#db.prepare('SELECT count(*) AS n FROM files WHERE complete = 1').get()!.n);
  }

  maxId(): number {
    return Number(this.#db.prepare('SELECT coalesce(max(id), 0) AS n FROM rows').get()!.n);
  }

  row(id: number, dim: number): StoredRow | null {
    const r = this.#getRow.get(id);
    return r ? { ...placeOf(r), vector: vectorOf(r.vector, dim) } : null;
  }

  places(ids: readonly number[]): Map<number, RowPlace & { id: number }> {
    const get = this.#getPlace;
    const out = new Map<number, RowPlace & { id: number }>();
    for (const id of ids) {
      const r = get.get(id);
      if (r) out.set(id, placeOf(r));
    }
    return out;
  }

  /** Every row's id and vector blob, in id order (from `after` on). */
  *vectors(after = 0): Generator<{ id: number; blob: unknown }> {
    for (const r of this.#db.prepare('SELECT id, vector FROM rows WHERE id > ? ORDER BY id').iterate(after))
      yield { id: Number(r.id), blob: r.vector };
  }

  /** Every row with its place and vector, in id order. */
  *rows(dim: number): Generator<StoredRow> {
    for (const r of this.#db.prepare('SELECT id, path, win, start_s, end_s, vector FROM rows ORDER BY id').iterate())
      yield { ...placeOf(r), vector: vectorOf(r.vector, dim) };
  }

  /** Checks the file's pages (PRAGMA quick_check); throws index_corrupt naming the first problem. */
  check(file: string): void {
    const r = this.#db.prepare('PRAGMA quick_check').all();
    const first = String(Object.values(r[0] ?? {})[0] ?? 'no answer');
    if (first !== 'ok') throw new SearchError('index_corrupt', `${file}: the index is damaged (${first})`);
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

function parseModel(file: string, text: string | undefined): IndexModel {
  try {
    const m = JSON.parse(text ?? '') as IndexModel;
    if (typeof m.name === 'string' && typeof m.digest === 'string' && Number.isInteger(m.dim) && m.dim > 0 && typeof m.pool === 'string') return m;
  } catch {}
  throw new SearchError('index_corrupt', `${file}: the index's model record is damaged`);
}

function sqliteReason(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/\s+/g, ' ').trim();
}
