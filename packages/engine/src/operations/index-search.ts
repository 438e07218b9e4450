// An index of embeddings on disk (@jepa/search), searched and filled through the engine, for the front
// ends that hold one (the HTTP server, MCP): the query is embedded by the engine's model with the
// index's pooling; path items and files to add go through the engine's path policy. The CLI embeds
// with an encoder context of its own, as `jepa embed`. @jepa/search itself knows nothing of the engine,
// and loads (node:sqlite, usearch) only when one of these runs.
import { statSync } from 'node:fs';
import type { Hit, IndexModel, NewRow, SearchMode, VectorIndex, FileIdentity } from '@jepa/search';
import { badField } from '../errors.js';
import type { ParsedItem, Sampling } from '../items/parse-item.js';
import { embed } from './embed.js';
import { ALIGNED } from './text-side.js';
import type { CallOptions, EngineCore, ModelHeader } from './engine-core.js';
import { type Pool, type VectorPool, choosePool, pooledWidth } from '@jepa/session';

const searchPackage = () => import('@jepa/search');

/** A model file's identity, hashed once per (path, size, mtime, pool). */
const identities = new Map<string, IndexModel>();

/** The model's id (by id, or the only one) and its identity in an index pooled by `pool`, from its header: nothing loads. */
async function identityOf({ id, path, spec }: ModelHeader, pool: string): Promise<{ id: string; identity: IndexModel }> {
  const s = statSync(path);
  const key = `${path}\0${s.size}\0${s.mtimeMs}\0${pool}`;
  let identity = identities.get(key);
  if (!identity) {
    const { modelIdentity } = await searchPackage();
    identity = modelIdentity(path, spec.name, pooledWidth(spec, pool as VectorPool), pool);
    identities.set(key, identity);
  }
  return { id, identity };
}

/**
 * The identity of an index made now for the model, pooled by `pool` (default the model's, as
 * `choosePool` picks it), and the model's id: an index made here holds one vector per item, `cls` or `mean`.
 */
export async function indexIdentity(core: EngineCore, model: unknown, pool?: Pool): Promise<{ id: string; identity: IndexModel }> {
  const header = await core.header(model);
  const chosen = choosePool(header.spec, pool);
  if (chosen !== 'cls' && chosen !== 'mean' && chosen !== ALIGNED)
    throw badField('pool', `an index holds one vector per item: "cls", "mean" or, for a text model, "${ALIGNED}"`);
  return identityOf(header, chosen);
}

/** The model's id, refused before it loads unless its identity is the index's. */
async function indexModel(core: EngineCore, index: VectorIndex, model: unknown): Promise<string> {
  const { id, identity } = await identityOf(await core.header(model), index.model.pool);
  index.checkModel(identity);
  return id;
}

export interface IndexSearchRequest {
  /** The index to search (the front end opens it and keeps it open). */
  index: VectorIndex;
  model?: unknown;
  /** The query: an item (an image, a clip, a sampled video's first window, a path) ... */
  item?: ParsedItem;
  /** ... or a stored row's id (left out of the results) ... */
  row?: number;
  /** ... or words, for an index of a text model's aligned vectors. */
  text?: string;
  k: number;
  mode?: SearchMode;
}

export interface IndexSearchResult {
  /** The model id that embedded the query (null for a row query). */
  model: string | null;
  hits: Hit[];
}

/** The index's rows nearest the query, best first. */
export async function searchIndex(core: EngineCore, req: IndexSearchRequest, call: CallOptions = {}): Promise<IndexSearchResult> {
  const { index } = req;
  if ([req.item, req.row, req.text].filter((q) => q !== undefined).length !== 1) {
    const { SearchError } = await searchPackage();
    throw new SearchError('query_kind', 'give one query: an input item, a row id or a text');
  }
  const mode = req.mode ?? 'auto';
  if (req.row !== undefined) return { model: null, hits: index.search(index.row(req.row).vector, { k: req.k, mode, exclude: req.row }) };
  if (req.text !== undefined) index.checkTextQuery('text');
  const model = await indexModel(core, index, req.model);
  const item = req.text === undefined ? req.item! : ({ field: 'text', kind: 'text', text: req.text } as const);
  const r = await embed(core, { model, items: [item], pool: index.model.pool as VectorPool, normalize: true }, call);
  const first = r.data[0];
  if (!first) {
    const { SearchError } = await searchPackage();
    throw new SearchError('query_kind', 'the query gave no vector (no frames in its range)');
  }
  return { model, hits: index.search(first.vector.values, { k: req.k, mode }) };
}

export interface IndexAddRequest {
  /** The index to add to. */
  index: VectorIndex;
  model?: unknown;
  /** Absolute paths the engine's path policy allows. */
  paths: readonly string[];
  /** Videos are cut into windows so (absent: each video is one clip). */
  sampling?: Sampling;
}

export interface IndexAddResult {
  model: string;
  /** Files embedded now, and their rows. */
  added: number;
  rows: number;
  /** Files already in the index with the same size and mtime. */
  unchanged: number;
  failed: { path: string; error: string }[];
}

/**
 * Adds new and changed files, one file per embedding call and per transaction, holding the model
 * throughout; the model and the paths are checked before it loads.
 */
export async function addToIndex(core: EngineCore, req: IndexAddRequest, call: CallOptions = {}): Promise<IndexAddResult> {
  const { index } = req;
  const model = await indexModel(core, index, req.model);
  const files: FileIdentity[] = [];
  for (const [i, p] of req.paths.entries()) {
    const real = await core.loader.paths.check(`paths[${i}]`, p);
    const s = statSync(real);
    files.push({ path: real, size: s.size, mtimeMs: s.mtimeMs });
  }
  return core.withModel(model, () => addFiles(core, index, model, files, req.sampling, call));
}

async function addFiles(
  core: EngineCore,
  index: VectorIndex,
  model: string,
  files: readonly FileIdentity[],
  sampling: Sampling | undefined,
  call: CallOptions,
): Promise<IndexAddResult> {
  const todo = index.pending(files);
  const failed: { path: string; error: string }[] = [];
  let rows = 0;
  for (const f of todo) {
    const item: ParsedItem = { field: 'paths', kind: 'path', path: f.path, as: null, ...(sampling ? { sampling } : {}) };
    try {
      const r = await embed(core, { model, items: [item], pool: index.model.pool as VectorPool }, call);
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
