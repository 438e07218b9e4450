// POST /v1/features against `jepa features --pca` (the same pixels for the same input), on the demo
// video model and a forged image model (CLS token left out); the page's static files and the API-key
// rule (the page public, its API calls not).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { decodeImage, type RgbImage } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { demo, get, jepa, png, post, requireWebPage, sampleJpg, sampleMp4, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('features');
const still = forgeModel('hfvit', {
  path: join(dir, 'still.gguf'),
  // 32 × 32 pixels in 4 × 4 patches: an 8 × 8 grid behind a CLS token and two registers
  edit: (h) => ({
    ...h,
    enc: { ...h.enc, imgSize: 32, gridSize: 8, nPatches: 64 },
    pre: { ...h.pre, resize: { mode: 'short', size: 36 }, crop: 32 },
  }),
});
const image = join(dir, 'a.png');
writeFileSync(image, png(40, 36, 3));
const b64 = (p: string) => readFileSync(p).toString('base64');
const t = ['-t', String(THREADS)];

let server: JepaServer;
beforeAll(async () => {
  server = await startServer({ models: [demo, still.path] });
});
afterAll(async () => {
  await server?.close();
});

function colours(img: RgbImage): number {
  const seen = new Set<number>();
  for (let i = 0; i < img.data.length; i += 3) seen.add((img.data[i]! << 16) | (img.data[i + 1]! << 8) | img.data[i + 2]!);
  return seen.size;
}

function cliMap(model: string, ...args: string[]): RgbImage {
  const out = join(dir, `cli-${Math.random().toString(36).slice(2)}.png`);
  const r = jepa('features', '-m', model, ...args, '--pca', '-o', out, ...t);
  expect(r.code, r.err).toBe(0);
  return decodeImage(readFileSync(out));
}

describe('POST /v1/features', () => {
  const cases = [
    ['demo (video family, a still repeated to 8 frames)', demo, 'jepa-demo-vjepa2-untrained', { image: b64(sampleJpg) }, [sampleJpg], 128, 4],
    ['demo, a clip', demo, 'jepa-demo-vjepa2-untrained', { video: b64(sampleMp4) }, ['--video', sampleMp4], 128, 4],
    ['a forged ViT with a CLS token and registers', still.path, 'still', { image: b64(image) }, [image], 32, 1],
  ] as const;
  for (const [name, file, id, item, args, size, slices] of cases) {
    it(`${name}: the same pixels as jepa features --pca, non-constant, at the patch grid's size`, async () => {
      const r = await post(server, '/v1/features', { model: id, input: [item] });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const d = r.json.data[0];
      expect(d.object).toBe('features.pca');
      expect([d.width, d.height]).toEqual([size, size]);
      expect(d.grid.t).toBe(slices);
      expect(d.explained_variance).toHaveLength(3);
      expect(r.json.timing.total_ms).toBeGreaterThan(0);
      expect(r.json.timing.pca_ms).toBeGreaterThan(0);
      const served = decodeImage(Buffer.from(d.png, 'base64'));
      const view = decodeImage(Buffer.from(d.view, 'base64'));
      expect([served.width, served.height, view.width, view.height]).toEqual([size, size, size, size]);
      const cli = cliMap(file, ...args);
      expect([cli.width, cli.height]).toEqual([size, size]);
      expect(Buffer.from(served.data).equals(Buffer.from(cli.data))).toBe(true);
      const n = colours(served);
      console.log(`${name}: ${d.grid.h}x${d.grid.w} patches, ${n} colours, explained ${d.explained_variance.map((v: number) => v.toFixed(3))}`);
      expect(n).toBeGreaterThan(size === 128 ? 100 : 20);
    });
  }

  it('answers each item of a batch, and refuses bad input in the usual shape', async () => {
    const r = await post(server, '/v1/features', { model: 'still', input: [{ image: b64(image) }, { image: b64(sampleJpg) }] });
    expect(r.status).toBe(200);
    expect(r.json.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    expect(r.json.data[0].png).not.toBe(r.json.data[1].png);
    const bad = await post(server, '/v1/features', { model: 'still', input: [{ image: 'aGVsbG8gd29ybGQ=' }] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('input[0].image');
    const extra = await post(server, '/v1/features', { model: 'still', input: [{ image: b64(image) }], pooling: 'mean' });
    expect(extra.json.error.code).toBe('unknown_field');
    // pool shapes the embedding, which only include: ["embedding"] asks for
    const unasked = await post(server, '/v1/features', { model: 'still', input: [{ image: b64(image) }], pool: 'mean' });
    expect([unasked.status, unasked.json.error.code, unasked.json.error.param]).toEqual([400, 'unsupported_field', 'pool']);
  });

  it("is listed among every model's endpoints", async () => {
    const r = await get(server, '/v1/models');
    for (const m of r.json.data) expect(m.endpoints).toContain('/v1/features');
  });
});

describe('the page at /', () => {
  it('serves index.html, the bundle and the css with their types', async () => {
    requireWebPage();
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/web/app.js', 'text/javascript'],
      ['/web/app.css', 'text/css'],
    ] as const) {
      const r = await get(server, path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toContain(type);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await get(server, '/')).text).toContain('/web/app.js');
    expect((await get(server, '/web/nope.js')).status).toBe(404);
  });

  it('is public with an API key set; its API calls are not', async () => {
    requireWebPage();
    const keyed = await startServer({ models: [still.path], apiKey: 's3cret' });
    try {
      expect((await get(keyed, '/')).status).toBe(200);
      expect((await get(keyed, '/web/app.js')).status).toBe(200);
      expect((await get(keyed, '/web/nope.js')).status).toBe(401);
      const no = await post(keyed, '/v1/features', { input: { image: b64(image) } });
      expect(no.status).toBe(401);
      const yes = await post(keyed, '/v1/features', { input: { image: b64(image) } }, { authorization: 'Bearer s3cret' });
      expect(yes.status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});

describe('jepa features', () => {
  it('refuses in one line with exit 2: no --pca, a non-PNG output, a missing input', () => {
    for (const [args, message] of [
      [[sampleJpg, '-m', demo, '-o', join(dir, 'x.png')], /^jepa: say --pca/],
      [[sampleJpg, '-m', demo, '--pca', '-o', join(dir, 'x.jpg')], /^jepa: -o .*x\.jpg: write a \.png file$/],
      [[join(dir, 'missing.jpg'), '-m', demo, '--pca', '-o', join(dir, 'x.png')], /^jepa: .*missing\.jpg: no such file or folder$/],
      [['-m', demo, '--pca', '-o', join(dir, 'x.png')], /^jepa: give exactly one of/],
    ] as const) {
      const r = jepa('features', ...args);
      expect(r.code, r.err).toBe(2);
      const lines = r.err.trimEnd().split('\n');
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    }
  });

  it('writes the view with --view and prints JSON with --json', () => {
    const out = join(dir, 'm.png');
    const view = join(dir, 'v.png');
    const r = jepa('features', sampleJpg, '-m', demo, '--pca', '-o', out, '--view', view, '--json', ...t);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.grid).toEqual({ t: 4, h: 8, w: 8 });
    const v = decodeImage(readFileSync(view));
    expect([v.width, v.height]).toEqual([128, 128]);
    expect(colours(v)).toBeGreaterThan(100);
  });
});
