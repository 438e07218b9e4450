// The tools that take words, through `jepa mcp` behind the SDK's client, beside `jepa serve` on the same
// tiny dino.txt (fixtures/reference/dinotxt, converted here) and index: embed_text, classify (zero-shot
// labels) and search by text answer what /v1/embeddings, /v1/classify and /v1/search answer.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type JepaServer } from '@jepa/server';
import { convertDinotxt, dinotxtReference, runCli } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpChild, mcpChild, png, THREADS } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-mcp-words-'));
const photos = join(dir, 'photos');
const db = join(dir, 'db');
const ref = dinotxtReference();
let mcp: McpChild;
let http: JepaServer;
let photo = '';

// biome-ignore lint/suspicious/noExplicitAny: the server's JSON, read by path
async function post(route: string, body: unknown): Promise<any> {
  const r = await fetch(`${http.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await r.json();
  expect(r.status, JSON.stringify(json)).toBe(200);
  return json;
}

beforeAll(async () => {
  const model = convertDinotxt(join(dir, 'dinotxt.gguf'));
  mkdirSync(photos);
  for (let i = 0; i < 4; i++) writeFileSync(join(photos, `p${i}.png`), png(40 + 4 * i, 40, 80 + i));
  photo = join(photos, 'p1.png');
  const r = runCli(['index', 'add', '--db', db, '-m', model, photos, '-t', String(THREADS)], { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  [mcp, http] = await Promise.all([
    mcpChild(['--model', model, '--root', photos, '--index', db]),
    createServer({ models: [model], allowPaths: [photos], index: db, port: 0, threads: THREADS }),
  ]);
  await http.ready;
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await http?.close();
});

describe('words through jepa mcp', () => {
  it('list_models: the model takes words and serves embed_text and classify', async () => {
    const { models } = await mcp.ok<{ models: { id: string; text: boolean; tools: string[] }[] }>('list_models');
    expect(models[0]!.text).toBe(true);
    expect(models[0]!.tools).toEqual(expect.arrayContaining(['embed_text', 'classify']));
  });

  it("embed_text gives /v1/embeddings' values for strings", async () => {
    const got = await mcp.ok<{ dims: number; embeddings: number[][] }>('embed_text', { text: [ref.texts[0], ref.texts[1]] });
    const want = await post('/v1/embeddings', { input: [ref.texts[0], ref.texts[1]] });
    expect(got.dims).toBe(ref.textVectors[0]!.length);
    expect(got.embeddings).toEqual(want.data.map((d: { embedding: number[] }) => d.embedding));
  });

  it("classify gives /v1/classify's zero-shot labels", async () => {
    const labels = [ref.texts[0], ref.texts[1], ref.texts[3]];
    const got = await mcp.ok<{ top: unknown[]; logits: number[] }>('classify', { media: photo, labels, top_k: 2, logits: true });
    const want = await post('/v1/classify', { input: { path: photo }, labels, top_k: 2, logits: true });
    expect(got.top).toEqual(want.data[0].top);
    expect(got.logits).toEqual(want.data[0].logits);
  });

  it("search by text gives /v1/search's rows", async () => {
    const got = await mcp.ok<{ results: { id: number; score: number }[] }>('search', { text: ref.texts[3], k: 4 });
    const want = await post('/v1/search', { text: ref.texts[3], k: 4 });
    expect(got.results.map((h) => h.id)).toEqual(want.data.map((h: { id: number }) => h.id));
    for (const [i, h] of got.results.entries()) expect(h.score).toBeCloseTo(want.data[i].score, 6);
  });
});
