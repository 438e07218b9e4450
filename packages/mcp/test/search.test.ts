// The search front ends give the CLI's results: an index built by `jepa index add`, searched by
// `jepa search --json`, by POST /v1/search of a real server on loopback, and by the `search` tool of
// `jepa mcp` behind the SDK's client; POST /v1/index fills an index as `jepa index add` does, within
// the server's path policy.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { VectorIndex } from '@jepa/search';
import { createServer, type JepaServer } from '@jepa/server';
import { runCli, SAMPLE_MP4 } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpChild, mcpChild, png, THREADS } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-search-fronts-'));
const photos = join(dir, 'photos');
const outside = join(dir, 'outside');
const db = join(dir, 'db');
const served = join(dir, 'served-db');
let model = '';
let images: string[] = [];
let http: JepaServer;
let mcp: McpChild;

interface Row {
  id: number;
  path: string;
  score: number;
  start_s?: number;
}

const cli = (...args: string[]) => runCli(args, { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 });

async function post(route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${http.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

function cliSearch(...args: string[]): Row[] {
  const r = cli('search', '--db', db, '--json', '-t', String(THREADS), ...args);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
}

function expectSame(got: Row[], want: Row[]): void {
  expect(got.map((h) => [h.id, h.path, h.start_s])).toEqual(want.map((h) => [h.id, h.path, h.start_s]));
  for (const [i, h] of got.entries()) expect(h.score).toBeCloseTo(want[i]!.score, 5);
}

beforeAll(async () => {
  for (const d of [photos, outside]) mkdirSync(d);
  images = Array.from({ length: 12 }, (_, i) => {
    const p = join(photos, `p${String(i).padStart(2, '0')}.png`);
    writeFileSync(p, png(20 + (i % 3), 18, 100 + i));
    return p;
  });
  copyFileSync(SAMPLE_MP4, join(photos, 'clip.mp4'));
  writeFileSync(join(outside, 'secret.png'), png(16, 16, 9));
  model = forgeModel('hfvit', { seed: 7, path: join(dir, 'vit.gguf') }).path;
  const r = cli('index', 'add', '--db', db, '-m', model, photos, join(photos, 'clip.mp4'), '--window-seconds', '0.5', '-t', String(THREADS));
  expect(r.status, r.stderr).toBe(0);
  [http, mcp] = await Promise.all([
    createServer({ models: [model], allowPaths: [photos], port: 0, threads: THREADS, index: db }),
    mcpChild(['-m', model, '--root', photos, '--index', db]),
  ]);
  await http.ready;
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a query image, a clip and a stored row', () => {
  it('POST /v1/search and the search tool give jepa search --json', async () => {
    for (const q of [images[2]!, images[9]!]) {
      const want = cliSearch(q, '-k', '6');
      const route = await post('/v1/search', { input: { path: q }, k: 6 });
      expect(route.status, JSON.stringify(route.json)).toBe(200);
      expectSame(route.json.data as Row[], want);
      const tool = await mcp.ok<{ results: Row[] }>('search', { query: q, k: 6 });
      expectSame(tool.results, want);
    }
    const wantRow = cliSearch('--row', '4', '-k', '5');
    expectSame((await post('/v1/search', { row: 4, k: 5 })).json.data as Row[], wantRow);
    expectSame((await mcp.ok<{ results: Row[] }>('search', { row: 4, k: 5 })).results, wantRow);
  });

  it('a video hit carries its window times', async () => {
    const r = await post('/v1/search', { input: { path: join(photos, 'clip.mp4') }, k: 20 });
    expect(r.status).toBe(200);
    const windows = (r.json.data as Row[]).filter((h) => h.path.endsWith('clip.mp4'));
    expect(windows.map((w) => w.start_s).sort()).toEqual([0, 0.52, 1, 1.52]);
  });

  it('refuses, each in one line: a path outside the policy, no query, another model', async () => {
    const out = await post('/v1/search', { input: { path: join(outside, 'secret.png') } });
    expect(out.status).toBe(403);
    const none = await post('/v1/search', { k: 3 });
    expect(none.status).toBe(400);
    expect(String((none.json.error as { message: string }).message)).not.toMatch(/\n/);
    expect(await mcp.refused('search', { k: 3 })).toMatch(/give one of "query" \(media\), "text" \(words\) or "row"/);
    expect(await mcp.refused('search', { row: 999 })).toMatch(/has no row 999/);
  });
});

describe('POST /v1/index', () => {
  let server: JepaServer;
  beforeAll(async () => {
    server = await createServer({ models: [model], allowPaths: [photos], port: 0, threads: THREADS, index: served });
    await server.ready;
  });
  afterAll(() => server?.close());

  const postTo = async (body: unknown) => {
    const r = await fetch(`${server.url}/v1/index`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };

  it('fills an index as jepa index add does, new files only, within the path policy', async () => {
    const first = await postTo({ paths: images });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toMatchObject({ added: 12, rows_added: 12, unchanged: 0, rows: 12 });
    const again = await postTo({ paths: images });
    expect(again.json).toMatchObject({ added: 0, unchanged: 12, rows: 12 });
    const clip = await postTo({ paths: [join(photos, 'clip.mp4')], sampling: { window_seconds: 0.5 } });
    expect(clip.json).toMatchObject({ added: 1, rows_added: 4, rows: 16 });
    const refused = await postTo({ paths: [join(outside, 'secret.png')] });
    expect(refused.status).toBe(403);
    // the same rows as the CLI's index: paths and times equal, vectors within float error
    const read = (d: string) => {
      const index = VectorIndex.open(d);
      try {
        return [...index.rows()].sort((a, b) => `${a.path}${a.startS}`.localeCompare(`${b.path}${b.startS}`));
      } finally {
        index.close();
      }
    };
    await server.close();
    const mine = read(served);
    const theirs = read(db);
    expect(mine.map((r) => [r.path, r.startS, r.endS])).toEqual(theirs.map((r) => [r.path, r.startS, r.endS]));
    for (const [i, r] of mine.entries()) {
      let dot = 0;
      for (let j = 0; j < r.vector.length; j++) dot += r.vector[j]! * theirs[i]!.vector[j]!;
      expect(dot).toBeGreaterThan(0.99999);
    }
  });
});
