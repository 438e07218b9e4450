// Words on a real server on loopback with the tiny dino.txt of fixtures/reference/dinotxt (converted
// here): /v1/embeddings takes strings and {text} items as OpenAI's input does and the official openai
// SDK reads them unchanged (base64 by default); text vectors match the float64 reference's; a mixed
// request gives each side's own bits in the request's order; /v1/classify's zero-shot scores are
// exp(logit_scale)·cos of the image's and the labels' vectors, softmaxed; /v1/search by words ranks the
// index's rows by the cosine of the text vector.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VectorIndex } from '@jepa/search';
import { convertDinotxt, dinotxtReference } from '@jepa/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { f32, get, jepa, png, post, sameBits, sampleMp4, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('text');
const photos = join(dir, 'photos');
const db = join(dir, 'db');
const ref = dinotxtReference();
let model = '';
let images: string[] = [];
let server: JepaServer;

const unit = (v: ArrayLike<number>) => {
  const n = Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
  return Array.from(v, (x) => x / n);
};
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i]!, 0);
const b64 = (p: Buffer) => p.toString('base64');

beforeAll(async () => {
  model = convertDinotxt(join(dir, 'dinotxt.gguf'));
  mkdirSync(photos);
  images = Array.from({ length: 5 }, (_, i) => {
    const p = join(photos, `p${i}.png`);
    writeFileSync(p, png(40 + 6 * i, 36 + 4 * i, 60 + i));
    return p;
  });
  const r = jepa('index', 'add', '--db', db, '-m', model, photos, '-t', String(THREADS));
  expect(r.code, r.err).toBe(0);
  server = await startServer({ models: [model], allowPaths: [photos], index: db });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('GET /v1/models', () => {
  it('a dino.txt card takes words, is as wide as its aligned vectors, and names /v1/classify (zero-shot)', async () => {
    const r = await fetch(`${server.url}/v1/models/dinotxt`);
    const card = (await r.json()) as { text: boolean; dims: number; endpoints: string[] };
    expect(card.text).toBe(true);
    expect(card.dims).toBe(ref.textVectors[0]!.length);
    expect(card.endpoints).toEqual(['/v1/embeddings', '/v1/features', '/v1/classify']);
  });
});

describe('/v1/embeddings with words', () => {
  it("the openai SDK's embeddings.create, base64 by default and float, gives the reference's text vectors", async () => {
    // the SDK's own fetch, its request bodies recorded on the way
    const sent: Record<string, unknown>[] = [];
    const recording: typeof fetch = (url, init) => {
      sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return fetch(url, init);
    };
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0, fetch: recording });
    const one = await client.embeddings.create({ model: 'dinotxt', input: ref.texts[0]! });
    expect(sent[0]).toEqual({ model: 'dinotxt', input: ref.texts[0], encoding_format: 'base64' });
    expect(one.data).toHaveLength(1);
    expect(one.model).toBe('dinotxt');
    expect(one.data[0]!.embedding.length).toBe(ref.textVectors[0]!.length);
    expect(dot(unit(one.data[0]!.embedding), ref.textVectors[0]!)).toBeGreaterThan(0.9999);
    const many = await client.embeddings.create({ model: 'dinotxt', input: [ref.texts[1]!, ref.texts[3]!], encoding_format: 'float' });
    expect(many.data.map((d) => d.index)).toEqual([0, 1]);
    for (const [i, t] of [1, 3].entries()) expect(dot(unit(many.data[i]!.embedding), ref.textVectors[t]!)).toBeGreaterThan(0.9999);
    // the SDK decoded base64 to the same float32 values the float format gives
    const again = await client.embeddings.create({ model: 'dinotxt', input: [ref.texts[1]!] });
    expect(sameBits(Float32Array.from(again.data[0]!.embedding), Float32Array.from(many.data[0]!.embedding))).toBe(true);
  });

  it('a string, [strings] and [{text}] are the same request; a mixed one gives each side its own bits, in order', async () => {
    const vec = async (input: unknown) => {
      const r = await post(server, '/v1/embeddings', { input, encoding_format: 'base64' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json.data.map((d: { index: number; embedding: string }) => ({ index: d.index, v: f32(d.embedding) }));
    };
    const [a] = await vec(ref.texts[0]);
    // usage: a text's tokens, start and end included (the reference's row: its ids up to the end token)
    const u = await post(server, '/v1/embeddings', { input: [ref.texts[0], ref.texts[5]] });
    expect(u.json.usage).toEqual({ items: 2, tokens: ref.tokenCounts[0]! + ref.tokenCounts[5]! });
    const [b] = await vec([ref.texts[0]]);
    const [c] = await vec([{ text: ref.texts[0] }]);
    expect(sameBits(a.v, b.v) && sameBits(a.v, c.v)).toBe(true);
    const image = { image: b64(png(40, 36, 60)) };
    const [img] = await vec([image]);
    const mixed = await vec([ref.texts[0], image, { text: ref.texts[0] }]);
    expect(mixed.map((m: { index: number }) => m.index)).toEqual([0, 1, 2]);
    expect(sameBits(mixed[0].v, a.v)).toBe(true);
    expect(sameBits(mixed[1].v, img.v)).toBe(true);
    expect(sameBits(mixed[2].v, a.v)).toBe(true);
    // the image is in the text-aligned space (the default pool here), as wide as the text vectors
    expect(img.v.length).toBe(a.v.length);
    const r = await post(server, '/v1/embeddings', { input: [image], encoding_format: 'base64' });
    expect(r.json.data[0].shape).toEqual([a.v.length]);
  });

  it('text with a pool other than the aligned one is refused by name', async () => {
    const r = await post(server, '/v1/embeddings', { input: 'a dog', pool: 'cls' });
    expect(r.status).toBe(400);
    expect(r.json.error.param).toBe('pool');
  });
});

describe('/v1/classify with labels', () => {
  it("scores exp(logit_scale)·cos of the image's aligned vector and each label's text vector, softmaxed, best first", async () => {
    const image = { image: b64(png(44, 40, 61)) };
    const labels = [ref.texts[0]!, ref.texts[1]!, ref.texts[3]!, ref.texts[4]!];
    const r = await post(server, '/v1/classify', { input: [image], labels, top_k: 3, logits: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const e = await post(server, '/v1/embeddings', { input: [image], normalize: true });
    const v = e.json.data[0].embedding as number[];
    const want = [0, 1, 3, 4].map((t) => Math.exp(ref.logitScale) * dot(v, ref.textVectors[t]!));
    const got = r.json.data[0].logits as number[];
    for (const [i, w] of want.entries()) expect(Math.abs(got[i]! - w), labels[i]).toBeLessThan(2e-3 * Math.exp(ref.logitScale));
    const max = Math.max(...got);
    const sum = got.reduce((s, x) => s + Math.exp(x - max), 0);
    const order = got.map((_, i) => i).sort((a, b) => got[b]! - got[a]!);
    expect(r.json.data[0].top.map((c: { index: number }) => c.index)).toEqual(order.slice(0, 3));
    for (const c of r.json.data[0].top as { index: number; label: string; prob: number; logit: number }[]) {
      expect(c.label).toBe(labels[c.index]);
      expect(c.logit).toBe(got[c.index]);
      expect(c.prob).toBeCloseTo(Math.exp(got[c.index]! - max) / sum, 5);
    }
    const tooMany = await post(server, '/v1/classify', { input: [image], labels, top_k: 5 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.param).toBe('top_k');
  });

  it('the same labels again come from the text cache (jepa_text_vectors_total) with the same logits', async () => {
    const image = { image: b64(png(44, 40, 62)) };
    const labels = [ref.texts[1]!, ref.texts[4]!, ref.texts[5]!];
    const counted = async (source: string) => {
      const line = (await get(server, '/metrics')).text.split('\n').find((l) => l.startsWith(`jepa_text_vectors_total{source="${source}"}`));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const first = await post(server, '/v1/classify', { input: [image], labels, logits: true });
    const [cache, tower] = [await counted('cache'), await counted('text_tower')];
    const again = await post(server, '/v1/classify', { input: [image], labels, logits: true });
    expect([await counted('cache'), await counted('text_tower')]).toEqual([cache + 3, tower]);
    expect(again.json.data[0].logits).toEqual(first.json.data[0].logits);
  });
});

describe('/v1/classify with labels on a video, window by window', () => {
  it("each window's zero-shot labels, with its place in the video", async () => {
    const labels = [ref.texts[0]!, ref.texts[1]!];
    const input = { video: readFileSync(sampleMp4).toString('base64'), sampling: { window_seconds: 0.5 } };
    const r = await post(server, '/v1/classify', { input, labels, logits: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data.map((d: { start_s: number }) => d.start_s)).toEqual([0, 0.52, 1, 1.52]);
    for (const d of r.json.data as { top: { label: string }[]; logits: number[] }[]) {
      expect(d.top.map((c) => c.label).sort()).toEqual([...labels].sort());
      expect(d.logits).toHaveLength(2);
    }
  });
});

describe('/v1/search with words', () => {
  it("ranks the index's rows by the cosine of the words' text vector", async () => {
    const e = await post(server, '/v1/embeddings', { input: ref.texts[1], normalize: true });
    const q = e.json.data[0].embedding as number[];
    const index = VectorIndex.open(db);
    let want: { id: number; score: number }[];
    try {
      want = [...index.rows()].map((r) => ({ id: r.id, score: dot(unit(r.vector), q) })).sort((a, b) => b.score - a.score);
    } finally {
      index.close();
    }
    const r = await post(server, '/v1/search', { text: ref.texts[1], k: images.length });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.model).toBe('dinotxt');
    expect(r.json.data.map((h: { id: number }) => h.id)).toEqual(want.map((w) => w.id));
    for (const [i, h] of (r.json.data as { score: number }[]).entries()) expect(h.score).toBeCloseTo(want[i]!.score, 5);
  });
});
