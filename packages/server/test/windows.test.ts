// Long videos on a real server: a video item with `sampling` is cut into windows (spec windows-v1),
// each encoded like an item and answered in order with its place in the video; the windows are the
// fixture manifest's and window 0 gives the bits of its reference frames; bad sampling names its
// field; too many windows are refused; a truncated file answers its complete windows and a warning;
// a base64 video's temp file is gone once the request ends.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { demo, f32, get, post, root, sameBits, startServer, tmp } from './helpers.js';

const fixtures = join(root, 'fixtures/video-windows');
const cfr25 = join(fixtures, 'cfr25.mp4');
const dir = tmp('windows');
const headed = forgeModel('vjepa2', { path: join(dir, 'headed.gguf') });
const truncated = join(dir, 'truncated.mp4');
const whole = readFileSync(cfr25);
writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
const b64 = (p: string) => readFileSync(p).toString('base64');

interface ManifestWindow {
  window: number;
  frames: number[];
  start_s: number;
  end_s: number;
}
const manifest = JSON.parse(readFileSync(join(fixtures, 'manifest.json'), 'utf8')) as {
  videos: { file: string; cases: { case: string; windows: ManifestWindow[] }[] }[];
};
const expected = manifest.videos.find((v) => v.file === 'cfr25.mp4')!.cases.find((c) => c.case === 'fps5_frames4')!.windows;

const MAX_QUEUE = 16;
let server: JepaServer;
let serverTmp: string;

beforeAll(async () => {
  // the server's temp folder goes under `dir`, where the test can look into it
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    server = await startServer({ models: [demo, headed.path], allowPaths: [fixtures, dir], maxQueue: MAX_QUEUE, maxBatch: 4 });
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  const made = readdirSync(dir).filter((n) => n.startsWith('jepa-server-'));
  expect(made).toHaveLength(1);
  serverTmp = join(dir, made[0]!);
});
afterAll(async () => {
  await server?.close();
});

const model = 'jepa-demo-vjepa2-untrained';
const sampling = { fps: 5, frames: 4 };

function expectWindows(data: { index: number; window: number; frames: number[]; start_s: number; end_s: number }[], want: ManifestWindow[]) {
  expect(data.map((d) => d.window)).toEqual(want.map((w) => w.window));
  data.forEach((d, i) => {
    expect(d.index).toBe(0);
    expect(d.frames).toEqual(want[i]!.frames);
    expect(d.start_s).toBeCloseTo(want[i]!.start_s, 9);
    expect(d.end_s).toBeCloseTo(want[i]!.end_s, 9);
  });
}

async function referenceEmbedding(npy: string): Promise<Float32Array> {
  const r = await post(server, '/v1/embeddings', { model, input: { frames: b64(join(fixtures, npy)) }, encoding_format: 'base64' });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return f32(r.json.data[0].embedding);
}

describe('/v1/embeddings with sampling', () => {
  it("a path item gives the manifest's windows, and window 0 the bits of its reference frames", async () => {
    const r = await post(server, '/v1/embeddings', { model, input: [{ path: cfr25, sampling }], encoding_format: 'base64' });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data).toHaveLength(7);
    expectWindows(r.json.data, expected);
    expect(Object.keys(r.json.data[0])).toEqual(['object', 'index', 'window', 'start_s', 'end_s', 'frames', 'embedding', 'shape']);
    expect(r.json.data[0].shape).toEqual([192]);
    expect(r.json.warnings).toBeUndefined();
    expect(r.json.usage.items).toBe(7);
    expect(sameBits(f32(r.json.data[0].embedding), await referenceEmbedding('cfr25__fps5_frames4__w0.npy'))).toBe(true);
    expect(sameBits(f32(r.json.data[6].embedding), await referenceEmbedding('cfr25__fps5_frames4__w6.npy'))).toBe(true);
  });

  it('a base64 video item gives the same windows and bits, and its temp file is gone afterwards', async () => {
    const byPath = await post(server, '/v1/embeddings', { model, input: { path: cfr25, sampling }, encoding_format: 'base64' });
    const inline = await post(server, '/v1/embeddings', { model, input: { video: b64(cfr25), sampling }, encoding_format: 'base64' });
    expect(inline.status, JSON.stringify(inline.json)).toBe(200);
    expectWindows(inline.json.data, expected);
    inline.json.data.forEach((d: { embedding: string }, i: number) => {
      expect(sameBits(f32(d.embedding), f32(byPath.json.data[i].embedding)), `window ${i}`).toBe(true);
    });
    expect(readdirSync(serverTmp)).toEqual([]);
  });

  it('a client that goes away mid-request leaves no temp file behind', async () => {
    const controller = new AbortController();
    const sent = fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: { video: b64(cfr25), sampling: { frames: 4, stride: 10 } } }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await new Promise((done) => setTimeout(done, 150));
    controller.abort();
    expect(await sent).toBeInstanceOf(Error);
    for (let i = 0; i < 100 && readdirSync(serverTmp).length > 0; i++) await new Promise((done) => setTimeout(done, 50));
    expect(readdirSync(serverTmp)).toEqual([]);
    // and the server goes on answering
    const r = await post(server, '/v1/embeddings', { model, input: { path: cfr25, sampling } });
    expect(r.status).toBe(200);
  });

  it('items with and without sampling answer in order, each window with its item index', async () => {
    const r = await post(server, '/v1/embeddings', {
      model,
      input: [{ frames: b64(join(fixtures, 'cfr25__fps5_frames4__w0.npy')) }, { path: cfr25, sampling: { ...sampling, start: 4 } }],
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 1]);
    expect(Object.keys(r.json.data[0])).toEqual(['object', 'index', 'embedding', 'shape']);
    expect(r.json.data.slice(1).map((d: { window: number; start_s: number }) => [d.window, d.start_s])).toEqual([
      [0, 4],
      [1, 4.8],
    ]);
    expect(sameBits(f32(r.json.data[0].embedding), await referenceEmbedding('cfr25__fps5_frames4__w0.npy'))).toBe(true);
  });

  it('the windows count as items in the metrics', async () => {
    const count = async () => Number(/^jepa_items_total\{route="\/v1\/embeddings"\} (\S+)$/m.exec((await get(server, '/metrics')).text)?.[1] ?? 0);
    const before = await count();
    const r = await post(server, '/v1/embeddings', { model, input: { path: cfr25, sampling } });
    expect(r.status).toBe(200);
    expect((await count()) - before).toBe(7);
  });
});

describe('/v1/classify with sampling', () => {
  it('one classification per window, in order', async () => {
    const r = await post(server, '/v1/classify', { model: 'headed', input: { path: cfr25, sampling }, top_k: 3, logits: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data).toHaveLength(7);
    expectWindows(r.json.data, expected);
    for (const d of r.json.data) {
      expect(d.object).toBe('classification');
      expect(d.top).toHaveLength(3);
      expect(d.logits).toHaveLength(5);
    }
    expect(Object.keys(r.json.data[0])).toEqual(['object', 'index', 'window', 'start_s', 'end_s', 'frames', 'top', 'logits']);
  });
});

describe('refusals', () => {
  const refused = async (route: string, item: object, param: string, code?: string) => {
    const r = await post(server, route, { model: route === '/v1/embeddings' ? model : 'headed', input: [item] });
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.error.param).toBe(param);
    expect(r.json.error.message.startsWith(`${param}: `)).toBe(true);
    if (code) expect(r.json.error.code).toBe(code);
    return r.json.error.message as string;
  };

  it('bad sampling names its field', async () => {
    await refused('/v1/embeddings', { path: cfr25, sampling: { fps: 0 } }, 'input[0].sampling.fps');
    await refused('/v1/embeddings', { path: cfr25, sampling: { fps: '5' } }, 'input[0].sampling.fps');
    await refused('/v1/embeddings', { path: cfr25, sampling: { fsp: 5 } }, 'input[0].sampling.fsp', 'unknown_field');
    await refused('/v1/embeddings', { path: cfr25, sampling: [] }, 'input[0].sampling');
    await refused('/v1/embeddings', { path: cfr25, sampling: { frames: 2.5 } }, 'input[0].sampling.frames');
    await refused('/v1/embeddings', { path: cfr25, sampling: { start: 3, end: 2 } }, 'input[0].sampling.end');
    const past = await refused('/v1/embeddings', { path: cfr25, sampling: { start: 100 } }, 'input[0].sampling');
    expect(past).toMatch(/no frame/);
    await refused('/v1/classify', { video: b64(cfr25), sampling: { start: 100 } }, 'input[0].sampling');
    await refused('/v1/embeddings', { image: b64(cfr25), sampling }, 'input[0].sampling');
    await refused('/v1/embeddings', { path: cfr25, kind: 'image', sampling }, 'input[0].kind');
    expect(readdirSync(serverTmp)).toEqual([]);
  });

  it('more windows than --max-queue: too_many_items, with the window count', async () => {
    const message = await refused('/v1/embeddings', { path: cfr25, sampling: { frames: 4 } }, 'input[0].sampling', 'too_many_items');
    expect(message).toContain('37 windows');
    expect(message).toContain(`at most ${MAX_QUEUE}`);
  });

  it('/v1/features and /v1/predict take no sampling', async () => {
    const message = await refused('/v1/features', { path: cfr25, sampling }, 'input[0].sampling');
    expect(message).toContain('sampling is for /v1/embeddings and /v1/classify');
    await refused('/v1/predict', { path: cfr25, sampling }, 'input[0].sampling');
  });

  it('a video that is not one is the item field', async () => {
    writeFileSync(join(dir, 'not-video.mp4'), 'not a video');
    await refused('/v1/embeddings', { path: join(dir, 'not-video.mp4'), sampling }, 'input[0].path');
    await refused('/v1/embeddings', { video: Buffer.from('not a video').toString('base64'), sampling }, 'input[0].video');
    expect(readdirSync(serverTmp)).toEqual([]);
  });
});

describe('a truncated video', () => {
  it('answers its complete windows and one warning', async () => {
    for (const item of [
      { path: truncated, sampling },
      { video: b64(truncated), sampling },
    ]) {
      const r = await post(server, '/v1/embeddings', { model, input: item, encoding_format: 'base64' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const n = r.json.data.length;
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(7);
      expectWindows(r.json.data, expected.slice(0, n));
      expect(r.json.warnings).toHaveLength(1);
      expect(r.json.warnings[0]).not.toMatch(/[\r\n]/);
      expect(r.json.warnings[0]).not.toContain(serverTmp);
      expect(sameBits(f32(r.json.data[0].embedding), await referenceEmbedding('cfr25__fps5_frames4__w0.npy'))).toBe(true);
    }
    expect(readdirSync(serverTmp)).toEqual([]);
  });
});
