// POST /v1/search and POST /v1/index: the index of `jepa serve --index DIR` (@jepa/search), searched
// with a query the engine embeds (an item, as /v1/embeddings takes one, or words for an index of a
// dino.txt model's aligned vectors) or a stored row, and filled from
// files the server's path policy allows. Rows are numbered as `jepa search --json` numbers them. The
// index's refusals (SearchError) are JepaErrors, answered by their kind as the engine's are.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { badField, notFound, parseItem, parseSampling, parseText, type Pool } from '@jepa/engine';
import { DB_FILE, type Hit, VectorIndex } from '@jepa/search';
import type { FastifyInstance } from 'fastify';
import { objectBody } from '../json.js';
import { callOf } from './call-options.js';
import type { ServerState } from './server-state.js';

const MAX_K = 1000;

/** What a row's file is served as (GET /v1/search/file/ID, the page's thumbnails). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.avif': 'image/avif',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
};

function wholeNumber(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw badField(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

export function hitJson(h: Hit, index: number): Record<string, unknown> {
  return {
    object: 'search.result',
    index,
    id: h.id,
    path: h.path,
    score: h.score,
    ...(h.window === undefined ? {} : { window: h.window }),
    ...(h.startS === undefined ? {} : { start_s: h.startS, end_s: h.endS }),
  };
}

export function searchRoutes(app: FastifyInstance, state: ServerState): void {
  const dir = state.searchIndex;
  let index: VectorIndex | null = null;
  const opened = (): VectorIndex | null => {
    if (index === null && dir !== null && existsSync(join(dir, DB_FILE))) index = VectorIndex.open(dir);
    return index;
  };
  app.addHook('onClose', async () => {
    index?.close();
  });
  const off = () => notFound('this server has no index; start it with --index DIR', 'no_index');

  // the index in a line: the page shows its search only where there is one
  app.get('/v1/search', async () => {
    if (dir === null) throw off();
    const idx = opened();
    if (idx === null) throw notFound(`the index ${dir} is empty; POST /v1/index fills it`, 'index_empty');
    const info = idx.info();
    const m = info.model;
    return { object: 'index', rows: info.rows, files: info.files, dim: info.dim, model: { name: m.name, file: m.file, pool: m.pool } };
  });

  // a row's file as it is, for a thumbnail: only rows of the index, only where the path policy allows
  app.get('/v1/search/file/:id', async (req, reply) => {
    if (dir === null) throw off();
    const idx = opened();
    if (idx === null) throw notFound('the index is empty', 'index_empty');
    const id = Number((req.params as { id: string }).id);
    const path = await state.engine.checkPath('id', idx.row(id).path);
    const size = statSync(path).size;
    reply.type(MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream').header('accept-ranges', 'bytes');
    // one byte range (a video element seeks with them); anything else gets the whole file
    const m = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (m && (m[1] || m[2]) && size > 0) {
      const start = m[1] ? Number(m[1]) : Math.max(0, size - Number(m[2]));
      const end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      if (start > end || start >= size) return reply.code(416).header('content-range', `bytes */${size}`).send();
      return reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${size}`)
        .header('content-length', String(end - start + 1))
        .send(createReadStream(path, { start, end }));
    }
    return reply.header('content-length', String(size)).send(createReadStream(path));
  });

  app.post('/v1/search', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'text', 'row', 'k', 'exact']);
    if (dir === null) throw off();
    const idx = opened();
    if (idx === null) throw notFound(`the index ${dir} is empty; POST /v1/index fills it`, 'index_empty');
    const k = body.k === undefined ? 10 : wholeNumber(body.k, 'k', 1, MAX_K);
    const given = (['input', 'text', 'row'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1)
      throw badField(
        given[1] ?? 'input',
        'give one of "input" (an item), "text" (words) or "row" (a stored row id)',
        given.length === 0 ? 'missing_field' : 'conflicting_fields',
      );
    if (body.exact !== undefined && typeof body.exact !== 'boolean') throw badField('exact', 'must be true or false');
    const r = await state.engine.search(
      {
        index: idx,
        model: body.model,
        ...(body.input !== undefined
          ? { item: parseItem(body.input, 'input') }
          : body.text !== undefined
            ? { text: parseText(body.text, 'text') }
            : { row: wholeNumber(body.row, 'row', 1, Number.MAX_SAFE_INTEGER) }),
        k,
        mode: body.exact ? 'exact' : 'auto',
      },
      callOf(reply),
    );
    return { object: 'list', data: r.hits.map(hitJson), model: r.model, rows: idx.info().rows };
  });

  app.post('/v1/index', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'paths', 'sampling', 'pool']);
    if (dir === null) throw off();
    if (!Array.isArray(body.paths) || body.paths.length === 0)
      throw badField('paths', 'must be a non-empty array of absolute paths', 'missing_field');
    if (body.paths.length > state.engine.maxQueue) throw badField('paths', `at most ${state.engine.maxQueue} files a request`);
    const paths = body.paths.map((p, i) => {
      if (typeof p !== 'string') throw badField(`paths[${i}]`, 'must be a string');
      return p;
    });
    const sampling = body.sampling === undefined || body.sampling === null ? undefined : parseSampling(body.sampling, 'sampling');
    let idx = opened();
    if (idx === null) {
      // the first add makes the index, for the model and pooling it names
      const { identity } = await state.engine.indexIdentity(body.model, body.pool as Pool | undefined);
      idx = VectorIndex.openOrCreate(dir, identity);
      index = idx;
    } else if (body.pool !== undefined && body.pool !== idx.model.pool) throw badField('pool', `the index holds "${idx.model.pool}" vectors`);
    const r = await state.engine.addToIndex({ index: idx, model: body.model, paths, ...(sampling ? { sampling } : {}) }, callOf(reply));
    const info = idx.info();
    return {
      object: 'index.update',
      model: r.model,
      added: r.added,
      rows_added: r.rows,
      unchanged: r.unchanged,
      failed: r.failed,
      rows: info.rows,
      files: info.files,
    };
  });
}
