// Search and add through an Engine, for the front ends that hold one (the HTTP server, MCP): the
// query is embedded by the engine's model with the index's pooling; path items and files to add go
// through the engine's path policy. The CLI embeds with an encoder context of its own, as `jepa embed`.
import { statSync } from 'node:fs';
import { type CallOptions, type Engine, type ParsedItem, pooledWidth, type Sampling, type VectorPool } from '@jepa/engine';
import { SearchError } from './errors.js';
import { type IndexModel, modelIdentity } from './model-identity.js';
import type { FileIdentity, NewRow } from './row-store.js';
import type { Hit, SearchMode, VectorIndex } from './vector-index.js';

/** A model file's identity, hashed once per (path, size, mtime). */
const identities = new Map<string, IndexModel>();

/** The engine's model (by id, or its only one) and its identity in an index pooled by `pool`. */
export async function engineIdentity(engine: Engine, model: unknown, pool: string): Promise<{ id: string; identity: IndexModel }> {
  const slot = await engine.model(model);
  const path = slot.model.path;
  const s = statSync(path);
  const key = `${path}\0${s.size}\0${s.mtimeMs}\0${pool}`;
  let identity = identities.get(key);
  if (!identity) {
    identity = modelIdentity(path, slot.spec.name, pooledWidth(slot.spec, pool as VectorPool), pool);
    identities.set(key, identity);
  }
  return { id: slot.id, identity };
}

async function engineModel(engine: Engine, index: VectorIndex, model: unknown): Promise<string> {
  const { id, identity } = await engineIdentity(engine, model, index.model.pool);
  index.checkModel(identity);
  return id;
}

export interface EngineSearchRequest {
  model?: unknown;
  /** The query: an item (an image, a clip, a sampled video's first window, a path) ... */
  item?: ParsedItem;
  /** ... or a stored row's id (left out of the results). */
  row?: number;
  k: number;
  mode?: SearchMode;
}

export interface EngineSearchResult {
  /** The model id that embedded the query (null for a row query). */
  model: string | null;
  hits: Hit[];
}

export async function engineSearch(
  engine: Engine,
  index: VectorIndex,
  req: EngineSearchRequest,
  call: CallOptions = {},
): Promise<EngineSearchResult> {
  if ((req.item === undefined) === (req.row === undefined)) throw new SearchError('query_kind', 'give one query: an input item or a row id');
  const mode = req.mode ?? 'auto';
  if (req.row !== undefined) return { model: null, hits: index.search(index.row(req.row).vector, { k: req.k, mode, exclude: req.row }) };
  const model = await engineModel(engine, index, req.model);
  const r = await engine.embed({ model, items: [req.item!], pool: index.model.pool as VectorPool, normalize: true }, call);
  const first = r.data[0];
  if (!first) throw new SearchError('query_kind', 'the query gave no vector (no frames in its range)');
  return { model, hits: index.search(first.vector.values, { k: req.k, mode }) };
}

export interface EngineAddRequest {
  model?: unknown;
  /** Absolute paths the engine's path policy allows. */
  paths: readonly string[];
  /** Videos are cut into windows so (absent: each video is one clip). */
  sampling?: Sampling;
}

export interface EngineAddResult {
  model: string;
  /** Files embedded now, and their rows. */
  added: number;
  rows: number;
  /** Files already in the index with the same size and mtime. */
  unchanged: number;
  failed: { path: string; error: string }[];
}

/** Adds new and changed files, one file per engine call and per transaction. */
export async function engineAdd(engine: Engine, index: VectorIndex, req: EngineAddRequest, call: CallOptions = {}): Promise<EngineAddResult> {
  const model = await engineModel(engine, index, req.model);
  const files: FileIdentity[] = [];
  for (const [i, p] of req.paths.entries()) {
    const real = await engine.loader.paths.check(`paths[${i}]`, p);
    const s = statSync(real);
    files.push({ path: real, size: s.size, mtimeMs: s.mtimeMs });
  }
  const todo = index.pending(files);
  const failed: { path: string; error: string }[] = [];
  let rows = 0;
  for (const f of todo) {
    const item: ParsedItem = { field: 'paths', kind: 'path', path: f.path, as: null, ...(req.sampling ? { sampling: req.sampling } : {}) };
    try {
      const r = await engine.embed({ model, items: [item], pool: index.model.pool as VectorPool }, call);
      const batch: NewRow[] = r.data.map((e) => ({
        path: f.path,
        window: e.place?.window,
        startS: e.place?.start_s,
        endS: e.place?.end_s,
        vector: e.vector.values,
      }));
      index.commit(batch, [f], [f]);
      rows += batch.length;
    } catch (err) {
      if (call.signal?.aborted) throw err;
      failed.push({ path: f.path, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { model, added: todo.length - failed.length, rows, unchanged: files.length - todo.length, failed };
}
