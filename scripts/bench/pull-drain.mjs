// What receiving a large body costs a Node client, apart from writing and hashing it: the seeded file of
// `jepa-bench pull` served by the same loopback Hub process, drained four ways (fetch's async iterator,
// fetch with a BYOB reader into one 1 MiB buffer, node:http's 'data' events, and @jepa/hub's getBlob,
// the undici dispatcher the pull receives with), then pulled whole by @jepa/hub's pullSnapshot for comparison. Prints MB/s and this process's CPU ms per GB for each round.
// Run `jepa-bench pull --size-mib 512` once first (it makes the seed). Under `node --trace-gc`, the
// collector's lines show what the pulls set off.
//   node scripts/bench/pull-drain.mjs [ROUNDS]
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getBlob } from '../../packages/hub/dist/blob-request.js';
import { pullSnapshot } from '../../packages/hub/dist/index.js';

const rounds = Number(process.argv[2] ?? 3);
const seed = resolve('tmp/pull-bench/seed-512MiB.safetensors');
const hub = fork(resolve('apps/bench/dist/pull/hub-process.js'), ['bench/large', seed], { stdio: 'inherit' });
const [{ url, commit }] = await once(hub, 'message');
const sha = createHash('sha256');
for await (const chunk of createReadStream(seed)) sha.update(chunk);
const lfs = `${url}/lfs/${sha.digest('hex')}/model.safetensors`;
const out = join(tmpdir(), 'jepa-pull-drain');

const ways = {
  'fetch, async iterator': async () => {
    let n = 0;
    for await (const chunk of (await fetch(lfs)).body) n += chunk.length;
    return n;
  },
  'fetch, BYOB reader': async () => {
    const reader = (await fetch(lfs)).body.getReader({ mode: 'byob' });
    let n = 0;
    let buffer = new Uint8Array(1 << 20);
    for (;;) {
      const { done, value } = await reader.read(buffer);
      if (done) return n;
      n += value.length;
      buffer = new Uint8Array(value.buffer);
    }
  },
  'node:http': () =>
    new Promise((done, fail) =>
      http.get(lfs, (res) => {
        let n = 0;
        res.on('data', (chunk) => {
          n += chunk.length;
        });
        res.on('end', () => done(n));
        res.on('error', fail);
      }),
    ),
  '@jepa/hub getBlob (undici dispatcher)': async () => {
    let n = 0;
    await (await getBlob(lfs, {})).pipeTo((chunk) => {
      n += chunk.length;
      return undefined;
    });
    return n;
  },
  '@jepa/hub pull (received, written, hashed)': async () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const settings = { endpoint: url, cacheDir: join(out, 'hub'), jepaCache: join(out, 'jepa'), offline: false, retryDelayMs: 100, attempts: 3 };
    await pullSnapshot({ repo: 'bench/large', revision: commit, type: 'f32' }, { settings }, commit);
    return 512 * 2 ** 20;
  },
};
try {
  for (let round = 1; round <= rounds; round++)
    for (const [way, run] of Object.entries(ways)) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const bytes = await run();
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const msPerGb = (cpu.user + cpu.system) / 1000 / (bytes / 1e9);
      console.log(`round ${round}: ${way}: ${(bytes / 1e6 / seconds).toFixed(0)} MB/s, ${msPerGb.toFixed(0)} CPU ms/GB`);
    }
} finally {
  rmSync(out, { recursive: true, force: true });
  hub.disconnect();
}
