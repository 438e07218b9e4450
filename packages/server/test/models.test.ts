// Models as managed resources: a folder of three models loaded on first use (one load however many
// requests wait), unloaded after their keep-alive, evicted least recently used under a memory cap (a
// 503 when every model is in use), unloaded on request after the work in flight; /health during a
// slow load; a deadline that stops the graph between nodes; RSS after an unload (a child process).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { THREADS, demo, f32, get, heads, png, post, sameBits, serveChild, startServer, tmp, vmRssKiB } from './helpers.js';

const small = tmp('models');
copyFileSync(demo, join(small, 'demo-b.gguf'));
copyFileSync(demo, join(small, 'demo-c.gguf'));
forgeModel('hfvit', { path: join(small, 'tiny.gguf') });

/** A classifier, a masked predictor and a LeWorldModel (action width 10), each loaded on its first use. */
const headed = tmp('models-heads');
for (const name of ['vjepa2_pooler', 'vjepa2_predictor', 'lewm']) copyFileSync(join(heads, name, 'model.gguf'), join(headed, `${name}.gguf`));

const pngs = Array.from({ length: 16 }, (_, i) => png(24 + i, 20, 300 + i).toString('base64'));
const image = (i: number) => ({ image: pngs[i % pngs.length]! });

/** Weight bytes of each model once loaded, as the first test's /v1/models says (the cap of the eviction test). */
const loaded = { demo: 0, tiny: 0 };

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function metric(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

// biome-ignore lint/suspicious/noExplicitAny: the cards as the server sent them
async function cards(server: { url: string }): Promise<Record<string, any>> {
  const r = await get(server, '/v1/models');
  expect(r.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return Object.fromEntries(r.json.data.map((c: any) => [c.id, c]));
}

const embedding = async (server: { url: string }, model: string, i = 0, extra: Record<string, unknown> = {}) => {
  const r = await post(server, '/v1/embeddings', { model, input: [image(i)], encoding_format: 'base64', ...extra });
  return { ...r, bits: r.status === 200 ? f32(r.json.data[0].embedding) : null };
};

describe('models on demand', () => {
  it('reads a request body whole before it loads the model: a bad one answers 400 and loads nothing', async () => {
    const server = await startServer({ modelsDir: small });
    try {
      const bad = [
        { model: 'tiny', input: [image(0)], pool: 'max' },
        { model: 'tiny', input: [image(0)], encoding_format: 'hex' },
        { model: 'tiny', input: 'not an item' },
      ];
      for (const body of bad) expect((await post(server, '/v1/embeddings', body)).status).toBe(400);
      expect((await post(server, '/v1/features', { model: 'tiny', input: [image(0)], top_k: 3 })).status).toBe(400);
      expect((await cards(server)).tiny).toMatchObject({ state: 'unloaded', loads: 0 });
      // control: a good body loads it
      expect((await embedding(server, 'tiny')).status).toBe(200);
      expect((await cards(server)).tiny).toMatchObject({ state: 'loaded', loads: 1 });
    } finally {
      await server.close();
    }
  });

  it("reads a classify, predict or world-model body whole and checks it against the model's header before it loads the model: a bad one answers 400 and loads nothing", async () => {
    const server = await startServer({ modelsDir: headed });
    try {
      const bad: [string, Record<string, unknown>][] = [
        ['/v1/classify', { model: 'vjepa2_pooler', input: 'not an item' }],
        ['/v1/classify', { model: 'vjepa2_pooler', input: [image(0)], top_k: 0 }],
        ['/v1/classify', { model: 'vjepa2_pooler', input: [image(0)], top_k: 1000 }], // past the head's classes
        ['/v1/classify', { model: 'lewm', input: [image(0)] }], // no head
        ['/v1/predict', { model: 'vjepa2_predictor', input: [image(0)], context: 'x', target: [20] }],
        ['/v1/predict', { model: 'vjepa2_predictor', input: [image(0), image(1)], context: '0:16', target: [20] }],
        ['/v1/predict', { model: 'vjepa2_pooler', input: [image(0)], context: '0:16', target: [20] }], // no masked predictor
        ['/v1/worldmodel/rollout', { model: 'lewm', images: [image(0)], actions: [[0]], random_actions: 2 }],
        ['/v1/worldmodel/rollout', { model: 'lewm', images: [image(0)], actions: [[0, 1]] }], // the action width is 10
        ['/v1/worldmodel/rollout', { model: 'lewm', images: [image(0)], random_actions: 2, action_mean: [0] }],
        ['/v1/worldmodel/rollout', { model: 'lewm', images: [image(0)], random_actions: 2, encoding_format: 'hex' }],
        ['/v1/worldmodel/plan', { model: 'lewm', images: [image(0)] }], // no goal
        ['/v1/worldmodel/plan', { model: 'lewm', images: [image(0)], goal: image(1), samples: 10, top_k: 20 }],
        ['/v1/worldmodel/plan', { model: 'lewm', images: [image(0)], goal: image(1), action_mean: [0, 1], action_std: [1, 1] }],
        ['/v1/worldmodel/plan', { model: 'vjepa2_pooler', images: [image(0)], goal: image(1) }], // not a LeWorldModel
      ];
      for (const [route, body] of bad) {
        const r = await post(server, route, body);
        expect(r.status, `${route} ${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(r.json)}`).toBe(400);
      }
      const states = async () => Object.values(await cards(server)).map((c) => `${c.id} ${c.state} ${c.loads}`);
      expect(await states()).toEqual(['lewm unloaded 0', 'vjepa2_pooler unloaded 0', 'vjepa2_predictor unloaded 0']);
      // control: a good body loads its model, and only that one
      expect((await post(server, '/v1/classify', { model: 'vjepa2_pooler', input: [image(0)], top_k: 3 })).status).toBe(200);
      expect(await states()).toEqual(['lewm unloaded 0', 'vjepa2_pooler loaded 1', 'vjepa2_predictor unloaded 0']);
    } finally {
      await server.close();
    }
  });

  it('lists every model unloaded, loads one on its first request, and concurrent first requests share that one load', async () => {
    const server = await startServer({ modelsDir: small });
    try {
      const before = await cards(server);
      expect(Object.keys(before).sort()).toEqual(['demo-b', 'demo-c', 'tiny']);
      for (const c of Object.values(before))
        expect(c).toMatchObject({ object: 'model', state: 'unloaded', memory_bytes: 0, loads: 0, keep_alive: 'forever' });
      expect((await get(server, '/health')).json).toMatchObject({ status: 'ok', models: 3, ready: [], loading: [] });

      const answers = await Promise.all(Array.from({ length: 8 }, () => embedding(server, 'tiny')));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      for (const a of answers) expect(sameBits(a.bits!, answers[0]!.bits!)).toBe(true);
      const after = await cards(server);
      expect(after.tiny).toMatchObject({ state: 'loaded', loads: 1 });
      expect(after.tiny.memory_bytes).toBeGreaterThan(0);
      expect(after['demo-b']).toMatchObject({ state: 'unloaded', loads: 0 });
      expect(metric((await get(server, '/metrics')).text, 'jepa_model_loads_total', 'model="tiny"')).toBe(1);
      expect((await get(server, '/health')).json.ready).toEqual(['tiny']);

      expect((await embedding(server, 'demo-b')).status).toBe(200);
      const both = await cards(server);
      loaded.demo = both['demo-b'].memory_bytes;
      loaded.tiny = both.tiny.memory_bytes;
      expect(metric((await get(server, '/metrics')).text, 'jepa_model_weight_bytes', 'model="demo-b"')).toBe(loaded.demo);
    } finally {
      await server.close();
    }
  });

  it('an idle model unloads after its keep-alive and loads again, to the same bits; a per-model keep-alive holds another', async () => {
    const server = await startServer({ modelsDir: small, keepAliveMs: 300, keepAliveById: new Map([['demo-b', Number.POSITIVE_INFINITY]]) });
    try {
      const first = await embedding(server, 'tiny', 3);
      expect((await embedding(server, 'demo-b')).status).toBe(200);
      expect((await cards(server)).tiny.keep_alive).toBe('300ms');
      await until(async () => (await cards(server)).tiny.state === 'unloaded', 'tiny to unload');
      const text = (await get(server, '/metrics')).text;
      expect(metric(text, 'jepa_model_unloads_total', 'model="tiny",reason="idle"')).toBe(1);
      expect((await cards(server))['demo-b']).toMatchObject({ state: 'loaded', keep_alive: 'forever', expires_at: null });

      const again = await embedding(server, 'tiny', 3);
      expect(sameBits(again.bits!, first.bits!)).toBe(true);
      expect((await cards(server)).tiny.loads).toBe(2);

      // the load route: in memory now, with a keep-alive of its own from then on
      const r = await fetch(`${server.url}/v1/models/demo-c/load`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"keep_alive":"1h"}',
      });
      const card = await r.json();
      expect(r.status).toBe(200);
      expect(card).toMatchObject({ id: 'demo-c', state: 'loaded', keep_alive: '1h', loads: 1 });
      expect(card.expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
      const bad = await fetch(`${server.url}/v1/models/demo-c/load`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"keep_alive":"soon"}',
      });
      expect(bad.status).toBe(400);
      expect((await fetch(`${server.url}/v1/models/nope/load`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('under --max-model-memory: evicts the least recently used idle model, 503s while every model is in use, unloads after the work in flight', async () => {
    expect(loaded.demo, 'the first test measures the weights').toBeGreaterThan(0);
    const cap = 2 * loaded.demo + Math.floor(loaded.tiny / 2);
    const server = await startServer({ modelsDir: small, maxModelBytes: cap, timeoutMs: 120_000, maxQueue: 1024 });
    try {
      for (const id of ['tiny', 'demo-b', 'demo-c']) expect((await embedding(server, id)).status).toBe(200);
      let now = await cards(server);
      expect([now.tiny.state, now['demo-b'].state, now['demo-c'].state]).toEqual(['unloaded', 'loaded', 'loaded']);
      expect(metric((await get(server, '/metrics')).text, 'jepa_model_unloads_total', 'model="tiny",reason="evicted"')).toBe(1);

      // requests of about 3 s of work each on this machine, whatever its speed: busy while the test looks
      const t0 = performance.now();
      expect((await embedding(server, 'demo-c', 5)).status).toBe(200);
      const n = Math.min(400, Math.max(12, Math.ceil(3000 / (performance.now() - t0))));
      const images = Array.from({ length: n }, (_, i) => image(i));

      // both loaded models busy: tiny cannot get in
      const busy = ['demo-b', 'demo-c'].map((model) => post(server, '/v1/embeddings', { model, input: images }));
      // more than one request's items: both are admitted, so both models are in use
      await until(async () => metric((await get(server, '/metrics')).text, 'jepa_queue_depth') > n, 'both requests to be admitted');
      const refused = await embedding(server, 'tiny');
      expect(refused.status).toBe(503);
      expect(refused.json.error).toMatchObject({ type: 'server_error', code: 'model_memory_full' });
      expect(refused.json.error.message).toMatch(/--max-model-memory/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await Promise.all(busy)).map((a) => a.status)).toEqual([200, 200]);
      expect((await embedding(server, 'tiny')).status).toBe(200);
      now = await cards(server);
      expect(Object.values(now).filter((c) => c.state === 'loaded')).toHaveLength(2);
      expect(Object.values(now).reduce((n, c) => n + c.memory_bytes, 0)).toBeLessThanOrEqual(cap);

      // an unload waits for the request using the model, which completes
      const target = now['demo-b'].state === 'loaded' ? 'demo-b' : 'demo-c';
      let answeredAt = 0;
      const running = post(server, '/v1/embeddings', { model: target, input: images }).then((a) => {
        answeredAt = performance.now();
        return a;
      });
      await until(async () => metric((await get(server, '/metrics')).text, 'jepa_queue_depth') > 0, 'the request to be admitted');
      const unload = await fetch(`${server.url}/v1/models/${target}/unload`, { method: 'POST' });
      const unloadedAt = performance.now();
      expect(unload.status).toBe(200);
      expect((await unload.json()).state).toBe('unloaded');
      const done = await running;
      expect(done.status).toBe(200);
      expect(done.json.data).toHaveLength(n);
      expect(answeredAt).toBeLessThanOrEqual(unloadedAt);
      expect(metric((await get(server, '/metrics')).text, 'jepa_model_unloads_total', `model="${target}",reason="request"`)).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a model larger than --max-model-memory is refused with a 503 that says so', async () => {
    const server = await startServer({ modelsDir: small, maxModelBytes: 1000 });
    try {
      const r = await embedding(server, 'tiny');
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('model_too_large');
      expect(r.json.error.message).toMatch(/needs .* more than --max-model-memory/);
      expect((await cards(server)).tiny.state).toBe('unloaded');
    } finally {
      await server.close();
    }
  });
});

// A ViT-B-wide model of 6 blocks at 448 px: 175 MB to load, a graph long enough to stop midway.
const bigDir = tmp('big-model');
mkdirSync(bigDir, { recursive: true });
copyFileSync(join(small, 'tiny.gguf'), join(bigDir, 'tiny.gguf'));
const side = 448;
forgeModel('hfvit', {
  path: join(bigDir, 'big.gguf'),
  head: false,
  edit: (h) => ({
    ...h,
    enc: {
      ...h.enc,
      embedDim: 768,
      nHead: 12,
      headDim: 64,
      ffnDim: 3072,
      nLayer: 6,
      imgSize: side,
      patchSize: 16,
      gridSize: side / 16,
      nPatches: (side / 16) ** 2,
    },
    pre: { ...h.pre, resize: { mode: 'short', size: side }, crop: side },
  }),
});

describe('a large model', () => {
  it('/health and /metrics answer while it loads, and four loads asked at once share one', async () => {
    const s = await serveChild(['--models-dir', bigDir, '-t', String(THREADS)]);
    try {
      // the addon's own start-up (its first load) is not what is measured
      expect((await fetch(`${s.url}/v1/models/tiny/load`, { method: 'POST' })).status).toBe(200);
      await get(s, '/metrics'); // resets the event loop's delay histogram
      let loadedAt = 0;
      const loading = Promise.all(
        Array.from({ length: 4 }, () => fetch(`${s.url}/v1/models/big/load`, { method: 'POST' }).then((r) => r.status)),
      ).then((statuses) => {
        loadedAt = performance.now();
        return statuses;
      });
      const seen: { at: number; status: number; loading: string[] }[] = [];
      const lags: number[] = [];
      while (loadedAt === 0) {
        const h = await get(s, '/health');
        seen.push({ at: performance.now(), status: h.status, loading: h.json.loading });
        if (seen.length % 10 === 0) {
          const m = await get(s, '/metrics');
          expect(m.status).toBe(200);
          lags.push(metric(m.text, 'nodejs_eventloop_lag_max_seconds'));
        }
      }
      expect(await loading).toEqual([200, 200, 200, 200]);
      const text = (await get(s, '/metrics')).text;
      expect(metric(text, 'jepa_model_loads_total', 'model="big"')).toBe(1);
      const during = seen.filter((x) => x.at < loadedAt);
      expect(during.every((x) => x.status === 200)).toBe(true);
      expect(during.filter((x) => x.loading.includes('big')).length).toBeGreaterThanOrEqual(3);
      // The server's own reading of its event loop (prom-client's monitorEventLoopDelay, read and reset
      // by each scrape), for the log only: on a busy machine the process's time off the CPU counts too.
      // With the panels packed on the main thread, /health answered once during such a load.
      const lagMax = Math.max(...lags, metric(text, 'nodejs_eventloop_lag_max_seconds'));
      const loadSeconds = metric(text, 'jepa_model_load_seconds', 'model="big"');
      console.log(
        `${during.length} /health answers during a ${loadSeconds.toFixed(2)} s load; the event loop waited at most ${(lagMax * 1000).toFixed(0)} ms at a time`,
      );
    } finally {
      s.child.kill('SIGTERM');
      await s.exit;
    }
  });

  it('a request past its timeout gets 504, its graph stops between nodes, and the next one computes the same bits', async () => {
    const server = await startServer({ modelsDir: bigDir });
    try {
      const started = performance.now();
      const ref = await embedding(server, 'big');
      const took = performance.now() - started;
      expect(ref.status).toBe(200);
      const late = await embedding(server, 'big', 0, { timeout: Math.max(0.05, took / 4000) });
      expect(late.status).toBe(504);
      expect(late.json.error.code).toBe('timeout');
      // the graph stops at the next node boundary, a moment after the answer
      await until(async () => metric((await get(server, '/metrics')).text, 'jepa_graphs_stopped_total') >= 1, 'the graph to stop');
      const again = await embedding(server, 'big');
      expect(again.status).toBe(200);
      expect(sameBits(again.bits!, ref.bits!)).toBe(true);
      expect((await embedding(server, 'big', 0, { timeout: 'soon' })).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('RSS after an unload is within 10 % of RSS before the load (jepa serve as a child process)', async () => {
    const s = await serveChild(['--models-dir', bigDir, '-t', String(THREADS)]);
    const rss = () => vmRssKiB(s.child.pid!, (p) => readFileSync(p, 'utf8'));
    const cycle = async () => {
      expect((await fetch(`${s.url}/v1/models/big/load`, { method: 'POST' })).status).toBe(200);
      expect((await embedding(s, 'big')).status).toBe(200);
      const held = rss();
      expect((await fetch(`${s.url}/v1/models/big/unload`, { method: 'POST' })).status).toBe(200);
      return held;
    };
    try {
      await cycle(); // the first load also brings in code and thread pools that stay
      const before = rss();
      const held = await cycle();
      const after = rss();
      const said = `VmRSS ${before} kB before the load, ${held} kB loaded, ${after} kB after the unload`;
      console.log(said);
      expect(held - before, said).toBeGreaterThan(100_000); // the load took the memory the test is about
      expect(Math.abs(after - before) / before, said).toBeLessThan(0.1);
    } finally {
      s.child.kill('SIGTERM');
      await s.exit;
    }
  });
});
