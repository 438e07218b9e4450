// Models named hf:ORG/NAME in the server, against the loopback Hub (a real HTTP server speaking the
// Hub's protocol): POST /v1/models/load pulls on demand, /health answers while a throttled pull is in
// flight, two loads of one name pull once, GET /v1/models lists what the caches hold and a pull's
// progress, --max-model-memory holds for a pulled model, refusals are one OpenAI-shaped line, and
// `jepa serve --model hf:…` serves the name.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import type { HubSettings } from '@jepa/engine';
import { filesOfFolder, HubServer, REFERENCE } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo, f32, get, png, post, sameBits, serveChild, startServer, tmp } from './helpers.js';

const HFVIT = join(REFERENCE, 'hfvit');
const CHECKPOINT = /^(config\.json|preprocessor_config\.json|model\.safetensors)$/;
const hub = new HubServer();
const image = { image: png(20, 16, 7).toString('base64') };
let local = '';
/** A folder with the demo model, loaded on its first use: a server needs one model to start. */
const lazy = tmp('hub-lazy');
copyFileSync(demo, join(lazy, 'demo.gguf'));

/** Settings pointing at the loopback Hub, with empty caches of their own. */
function settings(extra: Partial<HubSettings> = {}): HubSettings {
  const dir = mkdtempSync(join(tmpdir(), 'jepa-server-hub-'));
  return {
    endpoint: hub.url,
    cacheDir: join(dir, 'hf', 'hub'),
    jepaCache: join(dir, 'jepa'),
    offline: false,
    retryDelayMs: 5,
    attempts: 3,
    ...extra,
  };
}

async function embedding(server: { url: string }, model: string): Promise<Float32Array> {
  const r = await post(server, '/v1/embeddings', { model, input: [image], encoding_format: 'base64' });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json.model).toBe(model);
  return f32(r.json.data[0].embedding);
}

// biome-ignore lint/suspicious/noExplicitAny: the cards as the server sent them
async function listed(server: { url: string }): Promise<Record<string, any>> {
  const r = await get(server, '/v1/models');
  expect(r.status).toBe(200);
  return Object.fromEntries(r.json.data.map((c: { id: string }) => [c.id, c]));
}

/** A checkpoint the converter finds no family in (a language model's, say): one tensor under a name no mapping knows. */
function notVision(): Map<string, Buffer> {
  const header = Buffer.from(JSON.stringify({ 'encoder.word_embeddings.weight': { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  return new Map([
    ['config.json', Buffer.from(JSON.stringify({ model_type: 'bert' }))],
    ['model.safetensors', Buffer.concat([length, header, Buffer.alloc(8)])],
  ]);
}

beforeAll(async () => {
  hub.seed(
    'tiny/hfvit',
    filesOfFolder(HFVIT, (p) => CHECKPOINT.test(p)),
  );
  hub.seed('tiny/text', notVision());
  hub.seed(
    'tiny/gated',
    filesOfFolder(HFVIT, (p) => CHECKPOINT.test(p)),
    { gated: true },
  );
  hub.seed(
    'tiny/hfvit-slow',
    filesOfFolder(HFVIT, (p) => CHECKPOINT.test(p)),
    { salt: 'slow' },
  );
  await hub.start();
  local = join(tmp('hub-local'), 'hfvit.gguf');
  await convertCheckpoint(join(HFVIT, 'model.safetensors'), local);
});

afterAll(async () => {
  await hub.stop();
});

describe('models by name in the server', () => {
  it('POST /v1/models/load pulls, converts and loads hf:ORG/NAME; it embeds as the locally converted file does (:f16 and :q8_0 do not)', async () => {
    const server = await startServer({ modelsDir: lazy, hub: settings() });
    const byFile = await startServer({ models: [local], hub: false });
    try {
      const r = await post(server, '/v1/models/load', { model: 'hf:tiny/hfvit@main', keep_alive: '5m' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toMatchObject({ id: 'hf:tiny/hfvit', object: 'model', state: 'loaded', downloaded: true, keep_alive: '5m', family: 'hfvit' });
      const named = await embedding(server, 'hf:tiny/hfvit');
      expect(sameBits(named, await embedding(byFile, 'hfvit'))).toBe(true);
      // the negative control: the same repository converted to f16 weights gives other bits
      const half = await embedding(server, 'hf:tiny/hfvit:f16');
      expect(half.length).toBe(named.length);
      expect(sameBits(half, named)).toBe(false);
      // a quantized name: the f32 GGUF quantized (packages/hub/test/pull.test.ts holds it to jepa-quantize's bytes)
      const q8 = await embedding(server, 'hf:tiny/hfvit:q8_0');
      expect(q8.length).toBe(named.length);
      expect(sameBits(q8, named)).toBe(false);
      const cards = await listed(server);
      expect(cards['hf:tiny/hfvit:f16']).toMatchObject({ state: 'loaded', downloaded: true });
      expect(cards['hf:tiny/hfvit:q8_0']).toMatchObject({ state: 'loaded', downloaded: true });
    } finally {
      await server.close();
      await byFile.close();
    }
  });

  it('/health and GET /v1/models answer while a throttled pull is in flight; two loads of one name pull once', async () => {
    const hubSettings = settings();
    const log: string[] = [];
    const server = await startServer({ models: [demo], hub: hubSettings, log: (line) => log.push(line) });
    hub.slowStepMs = 250;
    hub.fault('model.safetensors', 'slow');
    const lfsGets = () =>
      hub.requests.filter((q) => q.method === 'GET' && q.path.startsWith('/lfs/') && q.path.endsWith('/model.safetensors')).length;
    const before = lfsGets();
    try {
      const t0 = performance.now();
      let settled = false;
      const first = post(server, '/v1/models/load', { model: 'hf:tiny/hfvit-slow' }).finally(() => {
        settled = true;
      });
      // the pull is under way: the list shows its bytes, part of the file
      let pulling: { phase: string; file: string; bytes_done: number; bytes_total: number } | undefined;
      while (pulling?.file !== 'model.safetensors' || pulling.bytes_done === 0) {
        pulling = (await listed(server))['hf:tiny/hfvit-slow']?.pull ?? undefined;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(pulling.phase).toBe('downloading');
      expect(pulling.bytes_done).toBeLessThan(pulling.bytes_total);
      const second = post(server, '/v1/models/load', { model: 'hf:tiny/hfvit-slow' });
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) {
        const h0 = performance.now();
        const health = await get(server, '/health');
        answers.push(performance.now() - h0);
        expect(health.status).toBe(200);
        expect(health.json.loading).toContain('hf:tiny/hfvit-slow');
        // answered while the pull is still in flight, not after it
        expect(settled).toBe(false);
      }
      expect(Math.max(...answers)).toBeLessThan(500);
      const [a, b] = await Promise.all([first, second]);
      // the throttle held: the body came in 8 steps 250 ms apart, so the answers above came during it
      expect(performance.now() - t0).toBeGreaterThan(1500);
      expect(a.status, JSON.stringify(a.json)).toBe(200);
      expect(b.status, JSON.stringify(b.json)).toBe(200);
      expect(a.json.id).toBe('hf:tiny/hfvit-slow');
      expect(b.json).toMatchObject({ id: 'hf:tiny/hfvit-slow', state: 'loaded', loads: 1 });
      expect(lfsGets() - before).toBe(1);
      expect(log.some((l) => /hf:tiny\/hfvit-slow: downloading model\.safetensors/.test(l))).toBe(true);
      expect(log.some((l) => /hf:tiny\/hfvit-slow: pulled and converted in/.test(l))).toBe(true);
      const health = await get(server, '/health');
      expect(health.json).toMatchObject({ status: 'ok', models: 2, loading: [] });
    } finally {
      hub.slowStepMs = 20;
      await server.close();
    }
  });

  it('GET /v1/models lists the hf: models the caches hold, downloaded or not, and a new server finds them', async () => {
    const shared = settings();
    const first = await startServer({ modelsDir: lazy, hub: shared });
    const r = await post(first, '/v1/models/load', { model: 'hf:tiny/hfvit' });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    // downloaded into the same cache, but not a model the converter knows: refused, and not listed below
    const text = await post(first, '/v1/models/load', { model: 'hf:tiny/text' });
    expect(text.status, JSON.stringify(text.json)).toBe(400);
    expect(text.json.error.param).toBe('model');
    await first.close();
    const second = await startServer({ modelsDir: lazy, hub: shared });
    try {
      const cards = await listed(second);
      expect(cards.demo).toMatchObject({ state: 'unloaded' });
      expect(cards.demo.downloaded).toBeUndefined();
      expect(cards['hf:tiny/hfvit']).toMatchObject({
        object: 'model',
        state: 'unloaded',
        downloaded: true,
        converted: true,
        family: 'hfvit',
        pull: null,
      });
      expect(Object.keys(cards).sort()).toEqual(['demo', 'hf:tiny/hfvit']);
      // the negative control: a snapshot with its checkpoint gone is listed as not downloaded
      rmSync(join(shared.cacheDir, 'models--tiny--hfvit', 'snapshots', hub.repos.get('tiny/hfvit')!.branches.get('main')!, 'model.safetensors'));
      expect((await listed(second))['hf:tiny/hfvit']).toMatchObject({ downloaded: false, converted: true });
      // a request naming it serves it: the Hub gives the file back, the GGUF is jepa's cached one
      await embedding(second, 'hf:tiny/hfvit');
      expect((await listed(second))['hf:tiny/hfvit']).toMatchObject({ state: 'loaded', downloaded: true });
    } finally {
      await second.close();
    }
  });

  it('a pulled model stays within --max-model-memory; refusals are one OpenAI-shaped line', async () => {
    const capped = await startServer({ modelsDir: lazy, hub: settings(), maxModelBytes: 4096 });
    const offline = await startServer({ modelsDir: lazy, hub: settings({ offline: true }) });
    const unreachable = await startServer({ modelsDir: lazy, hub: settings({ endpoint: 'http://127.0.0.1:9' }) });
    const off = await startServer({ models: [demo], hub: false });
    try {
      const refusal = async (server: { url: string }, model: unknown) => {
        const r = await post(server, '/v1/models/load', { model });
        expect(r.json.error.message).not.toContain('\n');
        return { status: r.status, ...r.json.error };
      };
      expect(await refusal(capped, 'hf:tiny/hfvit')).toMatchObject({ status: 503, code: 'model_too_large', type: 'server_error' });
      expect((await listed(capped))['hf:tiny/hfvit']).toMatchObject({ state: 'unloaded', downloaded: true, memory_bytes: 0 });
      const unknown = await refusal(capped, 'hf:tiny/none');
      expect(unknown).toMatchObject({ status: 404, code: 'hub_repo_not_found', type: 'not_found_error', param: 'model' });
      expect(unknown.message).toMatch(`hf:tiny/none: no such model repository at ${hub.url}`);
      expect(await refusal(capped, 'hf:tiny/hfvit@v9')).toMatchObject({ status: 404, code: 'hub_revision_not_found', param: 'model' });
      expect(await refusal(capped, 'hf:not-a-repo')).toMatchObject({ status: 400, code: 'hub_bad_reference', param: 'model' });
      expect(await refusal(capped, 'hf:tiny/hfvit:q4_9')).toMatchObject({ status: 400, code: 'hub_bad_type', param: 'model' });
      expect(await refusal(capped, 42)).toMatchObject({ status: 400, code: 'missing_field', param: 'model' });
      const missing = await refusal(offline, 'hf:tiny/hfvit');
      expect(missing).toMatchObject({ status: 404, code: 'hub_offline_missing', param: 'model' });
      expect(missing.message).toMatch(/^HF_HUB_OFFLINE=1 and the cache \(.*\) does not hold hf:tiny\/hfvit/);
      expect(await refusal(unreachable, 'hf:tiny/hfvit')).toMatchObject({ status: 503, code: 'hub_unreachable', param: 'model' });
      expect(await refusal(off, 'hf:tiny/hfvit')).toMatchObject({ status: 400, code: 'hub_off', param: 'model' });
      const gated = await refusal(capped, 'hf:tiny/gated');
      expect(gated).toMatchObject({ status: 403, code: 'hub_gated', type: 'permission_error', param: 'model' });
      expect(gated.message).toMatch(/^hf:tiny\/gated is gated: accept its terms at .*, then set HF_TOKEN/);
      // a request naming a model the Hub lacks gets the same line
      const r = await post(capped, '/v1/embeddings', { model: 'hf:tiny/none', input: [image] });
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('hub_repo_not_found');
    } finally {
      await Promise.all([capped.close(), offline.close(), unreachable.close(), off.close()]);
    }
  });

  it('--model hf:ORG/NAME at start-up takes a keep-alive under any spelling of its name', async () => {
    const server = await startServer({
      models: ['hf:tiny/hfvit@main:f32'],
      keepAliveById: new Map([['hf:tiny/hfvit@main', 60_000]]),
      hub: settings(),
    });
    try {
      const cards = await listed(server);
      expect(Object.keys(cards)).toEqual(['hf:tiny/hfvit']);
      expect(cards['hf:tiny/hfvit']).toMatchObject({ state: 'loaded', keep_alive: '1m', downloaded: true });
    } finally {
      await server.close();
    }
    // the negative control: a keep-alive for a name no model is served under is refused at start-up
    await expect(startServer({ models: ['hf:tiny/hfvit'], keepAliveById: new Map([['hf:tiny/other', 60_000]]), hub: settings() })).rejects.toThrow(
      "keep-alive for 'hf:tiny/other': no model is called that",
    );
  });

  it('jepa serve --model hf:ORG/NAME pulls at start-up and serves the model under its name', async () => {
    const s = settings();
    const child = await serveChild(['--model', 'hf:tiny/hfvit', '-t', '2'], {
      env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: s.cacheDir, JEPA_CACHE: s.jepaCache, HF_TOKEN: '', HF_HUB_OFFLINE: '' },
    });
    try {
      const cards = await listed(child);
      expect(cards['hf:tiny/hfvit']).toMatchObject({ state: 'loaded', downloaded: true });
      expect(Object.keys(cards)).toEqual(['hf:tiny/hfvit']);
      expect(child.stderr()).toMatch(/model: hf:tiny\/hfvit: pulled and converted in/);
      expect((await embedding(child, 'hf:tiny/hfvit')).length).toBe(cards['hf:tiny/hfvit'].dims);
    } finally {
      child.child.kill('SIGTERM');
      await child.exit;
    }
  });
});
