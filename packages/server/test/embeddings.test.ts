// POST /v1/embeddings on a real server: concurrent requests batched together give the bits of
// serial requests and of `jepa embed`, for a still-image model (batched graphs) and the demo video
// model (a clip per graph); every item kind; the encoding formats.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { demo, f32, get, jepa, png, post, sameBits, sampleJpg, sampleMp4, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('embed');
const still = forgeModel('hfvit', { path: join(dir, 'still.gguf') });
const images = Array.from({ length: 8 }, (_, i) => {
  const p = join(dir, `img${i}.png`);
  writeFileSync(p, png(12 + i, 10 + 2 * i, i + 1));
  return p;
});
const b64 = (p: string) => readFileSync(p).toString('base64');

let server: JepaServer;

beforeAll(async () => {
  server = await startServer({ models: [still.path, demo], maxBatch: 8, maxWaitMs: 20, allowPaths: [dir] });
});
afterAll(async () => {
  await server?.close();
});

function cliEmbeddings(model: string, ...args: string[]): Float32Array[] {
  const out = join(dir, `cli-${Math.random().toString(36).slice(2)}.npy`);
  const r = jepa('embed', '-m', model, ...args, '-t', String(THREADS), '-o', out);
  expect(r.code, r.err).toBe(0);
  const npy = readNpy(out);
  const dim = npy.shape[npy.shape.length - 1]!;
  const data = npy.data as Float32Array;
  return Array.from({ length: npy.shape[0]! }, (_, i) => data.slice(i * dim, (i + 1) * dim));
}

async function embedOne(model: string, item: object, extra: object = {}): Promise<Float32Array> {
  const r = await post(server, '/v1/embeddings', { model, input: [item], encoding_format: 'base64', ...extra });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return f32(r.json.data[0].embedding);
}

async function batchSizes(): Promise<{ count: number; sum: number }> {
  const text = (await get(server, '/metrics')).text;
  const count = Number(/^jepa_batch_size_count (\S+)$/m.exec(text)![1]);
  const sum = Number(/^jepa_batch_size_sum (\S+)$/m.exec(text)![1]);
  return { count, sum };
}

describe('64 concurrent requests on a still-image model', () => {
  it('share graphs and give the bits of serial requests and of jepa embed', async () => {
    const before = await batchSizes();
    const order = Array.from({ length: 64 }, (_, i) => i % images.length);
    const concurrent = await Promise.all(order.map((i) => embedOne('still', { image: b64(images[i]!) })));
    const after = await batchSizes();
    const graphs = after.count - before.count;
    expect(after.sum - before.sum).toBe(64);
    expect(graphs).toBeLessThan(64);

    const serial: Float32Array[] = [];
    for (const p of images) serial.push(await embedOne('still', { image: b64(p) }));
    const cli = cliEmbeddings(still.path, ...images);
    order.forEach((img, k) => {
      expect(sameBits(concurrent[k]!, serial[img]!), `request ${k}`).toBe(true);
      expect(sameBits(serial[img]!, cli[img]!), `image ${img} against jepa embed`).toBe(true);
    });
  });

  it('one request of several items is batched too, in input order', async () => {
    const r = await post(server, '/v1/embeddings', { model: 'still', input: images.map((p) => ({ image: b64(p) })), encoding_format: 'base64' });
    expect(r.status).toBe(200);
    const cli = cliEmbeddings(still.path, ...images);
    r.json.data.forEach((d: { index: number; embedding: string }, i: number) => {
      expect(d.index).toBe(i);
      expect(sameBits(f32(d.embedding), cli[i]!)).toBe(true);
    });
    expect(r.json.usage).toEqual({ items: 8, tokens: 8 * 7 });
  });
});

describe('the demo video model (a still is repeated to 8 frames; one clip per graph)', () => {
  it('8 concurrent requests give the bits of serial ones and of jepa embed', async () => {
    const items = [sampleJpg, ...images.slice(0, 3)];
    const order = [0, 1, 2, 3, 3, 2, 1, 0];
    const concurrent = await Promise.all(order.map((i) => embedOne('jepa-demo-vjepa2-untrained', { image: b64(items[i]!) })));
    const serial: Float32Array[] = [];
    for (const p of items) serial.push(await embedOne('jepa-demo-vjepa2-untrained', { image: b64(p) }));
    const cli = cliEmbeddings(demo, ...items);
    for (const [k, img] of order.entries()) expect(sameBits(concurrent[k]!, serial[img]!), `request ${k}`).toBe(true);
    for (let i = 0; i < items.length; i++) expect(sameBits(serial[i]!, cli[i]!), `item ${i} against jepa embed`).toBe(true);
  });

  it('a base64 video, a {path} video and .npy frames agree with jepa embed --video / --frames-npy', async () => {
    const [viaCli] = cliEmbeddings(demo, '--video', sampleMp4);
    expect(sameBits(await embedOne('jepa-demo-vjepa2-untrained', { video: b64(sampleMp4) }), viaCli!)).toBe(true);
    const link = join(dir, 'clip.mp4');
    writeFileSync(link, readFileSync(sampleMp4));
    expect(sameBits(await embedOne('jepa-demo-vjepa2-untrained', { path: link }), viaCli!)).toBe(true);

    const frames = new Uint8Array(8 * 20 * 24 * 3).map((_, i) => (i * 37) % 251);
    const framesPath = join(dir, 'frames.npy');
    writeFileSync(framesPath, encodeNpy(frames, [8, 20, 24, 3]));
    const [framesCli] = cliEmbeddings(demo, '--frames-npy', framesPath);
    expect(sameBits(await embedOne('jepa-demo-vjepa2-untrained', { frames: b64(framesPath) }), framesCli!)).toBe(true);
  });

  it('a preprocessed tensor equals jepa embed --input-npy, with pool "none" as [N, D]', async () => {
    const x = Float32Array.from({ length: 3 * 8 * 64 * 64 }, (_, i) => Math.sin(i * 0.01));
    const xPath = join(dir, 'x.npy');
    writeFileSync(xPath, encodeNpy(x, [1, 3, 8, 64, 64]));
    const out = join(dir, 'tokens.npy');
    expect(jepa('embed', '-m', demo, '--input-npy', xPath, '--pool', 'none', '-t', String(THREADS), '-o', out).code).toBe(0);
    const r = await post(server, '/v1/embeddings', {
      model: 'jepa-demo-vjepa2-untrained',
      input: { tensor: b64(xPath) },
      pool: 'none',
      encoding_format: 'base64',
    });
    expect(r.status).toBe(200);
    expect(r.json.data[0].shape).toEqual([64, 192]);
    expect(sameBits(f32(r.json.data[0].embedding), readNpy(out).data as Float32Array)).toBe(true);
    expect(r.json.usage.tokens).toBe(64);
  });
});

describe('formats and options', () => {
  it('float JSON and base64 carry the same float32 values; a data: URI works like bare base64', async () => {
    const a = await post(server, '/v1/embeddings', { model: 'still', input: [{ image: `data:image/png;base64,${b64(images[0]!)}` }] });
    const b = await post(server, '/v1/embeddings', { model: 'still', input: [{ image: b64(images[0]!) }], encoding_format: 'base64' });
    expect(a.json.object).toBe('list');
    expect(a.json.model).toBe('still');
    expect(a.json.data[0].object).toBe('embedding');
    expect(sameBits(f32(a.json.data[0].embedding), f32(b.json.data[0].embedding))).toBe(true);
  });

  it('pool mean differs from the default CLS; normalize gives unit vectors', async () => {
    const cls = await embedOne('still', { image: b64(images[1]!) });
    const mean = await embedOne('still', { image: b64(images[1]!) }, { pool: 'mean' });
    const [meanCli] = cliEmbeddings(still.path, '--pool', 'mean', images[1]!);
    expect(sameBits(mean, meanCli!)).toBe(true);
    expect(sameBits(cls, mean)).toBe(false);
    const unit = await embedOne('still', { image: b64(images[1]!) }, { normalize: true });
    expect(Math.hypot(...unit)).toBeCloseTo(1, 5);
  });

  it('the only model may be left out of a request', async () => {
    const one = await startServer({ models: [still.path] });
    try {
      const r = await post(one, '/v1/embeddings', { input: { image: b64(images[2]!) }, encoding_format: 'base64' });
      expect(r.status).toBe(200);
      expect(sameBits(f32(r.json.data[0].embedding), await embedOne('still', { image: b64(images[2]!) }))).toBe(true);
    } finally {
      await one.close();
    }
  });

  it("GET /v1/models lists both models in OpenAI's shape", async () => {
    const r = await get(server, '/v1/models');
    expect(r.json.object).toBe('list');
    const ids = r.json.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(['still', 'jepa-demo-vjepa2-untrained']);
    const d = r.json.data[1];
    expect(d).toMatchObject({ object: 'model', family: 'vjepa2', dims: 192, frames: 8, labels: null });
    expect(d.recipe.crop).toBe(128);
    expect((await get(server, '/v1/models/still')).json.family).toBe('hfvit');
  });
});
