#!/usr/bin/env node
// /health while the server pulls a model by name: a Hugging Face folder laid into a private cache as
// Python's huggingface_hub lays it (HF_HUB_OFFLINE, so the pull is the conversion and the load), then
// POST /v1/models/load {"model": "hf:bench/model"} while /health is asked every 10 ms; then, under the
// same polling, the load alone (unloaded and loaded again), the conversion alone on its thread (as the
// hub runs it), and the same conversion on the server's main thread (convertCheckpoint called in its
// process, as the hub ran it before the conversion had a thread of its own).
//   node scripts/bench/serve-pull-health.mjs HF_FOLDER
//   e.g. node scripts/bench/serve-pull-health.mjs tmp/peers/dinov3-b16-hf
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { convertCheckpoint } from '../../packages/convert/dist/index.js';
import { convertInThread } from '../../packages/hub/dist/convert-thread.js';
import { createServer } from '../../packages/server/dist/index.js';

const folder = resolve(process.argv[2] ?? '');
const work = mkdtempSync(join(tmpdir(), 'jepa-pull-health-'));
const sha256 = (path) =>
  new Promise((done, fail) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => done(h.digest('hex')))
      .on('error', fail);
  });

async function layCache() {
  const commit = '0123456789abcdef0123456789abcdef01234567';
  const repo = join(work, 'hf', 'hub', 'models--bench--model');
  for (const d of ['blobs', 'refs', join('snapshots', commit)]) mkdirSync(join(repo, d), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), commit);
  for (const name of readdirSync(folder)) {
    const sha = await sha256(join(folder, name));
    try {
      linkSync(join(folder, name), join(repo, 'blobs', sha));
    } catch {
      copyFileSync(join(folder, name), join(repo, 'blobs', sha));
    }
    symlinkSync(`../../blobs/${sha}`, join(repo, 'snapshots', commit, name));
  }
  return join(repo, 'snapshots', commit);
}

/** Asks /health every 10 ms until `work` settles; the answer times in ms. */
async function healthDuring(url, work) {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const times = [];
  while (!done) {
    const t0 = performance.now();
    const r = await fetch(`${url}/health`);
    await r.text();
    times.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  await settled;
  return times;
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `${times.length} answers, median ${median.toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`;
}

const snapshot = await layCache();
const models = join(work, 'models');
mkdirSync(models);
copyFileSync(new URL('../../fixtures/demo/jepa-demo-vjepa2-untrained.gguf', import.meta.url), join(models, 'demo.gguf'));
const server = await createServer({
  modelsDir: models,
  port: 0,
  threads: 2,
  hub: {
    endpoint: 'http://127.0.0.1:9',
    cacheDir: join(work, 'hf', 'hub'),
    jepaCache: join(work, 'jepa'),
    offline: true,
    retryDelayMs: 1000,
    attempts: 1,
  },
});
await server.ready;
try {
  const post = (route, body) =>
    fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      async (r) => {
        if (r.status !== 200) throw new Error(`${route}: ${r.status} ${await r.text()}`);
      },
    );
  const timed = async (label, work) => {
    const t0 = performance.now();
    const times = await healthDuring(server.url, work());
    console.log(`${label}, ${((performance.now() - t0) / 1000).toFixed(2)} s: /health ${summary(times)}`);
  };
  console.log(`${cpus()[0]?.model.trim()}, ${cpus().length} cores; ${folder}`);
  await timed('POST /v1/models/load hf:bench/model (the conversion on its thread, then the load)', () =>
    post('/v1/models/load', { model: 'hf:bench/model' }),
  );
  await post('/v1/models/load', { model: 'hf:bench/model' });
  const unloaded = await fetch(`${server.url}/v1/models/hf%3Abench%2Fmodel/unload`, { method: 'POST' });
  if (unloaded.status !== 200) throw new Error(`unload: ${unloaded.status} ${await unloaded.text()}`);
  await timed('the load alone (unloaded, loaded again)', () => post('/v1/models/load', { model: 'hf:bench/model' }));
  const checkpoint = join(snapshot, 'model.safetensors');
  await timed('the conversion alone, on its thread', () => convertInThread({ checkpoint, out: join(work, 'thread.gguf'), type: 'f32' }));
  await timed("the same conversion on the server's main thread", () => convertCheckpoint(checkpoint, join(work, 'main-thread.gguf')));
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
