// Where a pull's CPU goes, thread by thread: pulls the seeded file of `jepa-bench pull` from the loopback
// Hub ROUNDS times under `node --cpu-prof`, then prints for each thread's profile (the main thread, and
// one store thread per pull) its time idle, in the collector, and in its busiest functions.
// Run `jepa-bench pull --size-mib 512` once first (it makes the seed).
//   node scripts/bench/pull-profile.mjs [ROUNDS]
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const rounds = Number(process.argv[2] ?? 3);
const seed = resolve('tmp/pull-bench/seed-512MiB.safetensors');

if (process.argv[3] !== '--profiled') {
  const dir = mkdtempSync(join(tmpdir(), 'jepa-pull-profile-'));
  try {
    execFileSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, process.argv[1], String(rounds), '--profiled'], { stdio: 'inherit' });
    for (const name of readdirSync(dir).sort()) summarise(name, JSON.parse(readFileSync(join(dir, name), 'utf8')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const { pullSnapshot } = await import('../../packages/hub/dist/index.js');
  // the Hub's process is not profiled
  const hub = fork(resolve('apps/bench/dist/pull/hub-process.js'), ['bench/large', seed], { stdio: 'inherit', execArgv: [] });
  const [{ url, commit }] = await once(hub, 'message');
  const out = mkdtempSync(join(tmpdir(), 'jepa-pull-profile-cache-'));
  try {
    for (let round = 1; round <= rounds; round++) {
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      const settings = { endpoint: url, cacheDir: join(out, 'hub'), jepaCache: join(out, 'jepa'), offline: false, retryDelayMs: 100, attempts: 3 };
      const t0 = performance.now();
      await pullSnapshot({ repo: 'bench/large', revision: commit, type: 'f32' }, { settings }, commit);
      console.log(`pull ${round}: ${((512 * 2 ** 20) / 1e6 / ((performance.now() - t0) / 1000)).toFixed(0)} MB/s`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    hub.disconnect();
  }
}

/** One thread's profile: total, idle and collector time, and the functions with the most self time. */
function summarise(name, profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}${url ? `:${lineNumber + 1}` : ''}`.trim();
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  const ms = (key) => ((self.get(key) ?? 0) / 1000).toFixed(0);
  console.log(`\n${name}: ${(total / 1000).toFixed(0)} ms, idle ${ms('(idle)')} ms, garbage collector ${ms('(garbage collector)')} ms`);
  const busiest = [...self].filter(([key]) => key !== '(idle)' && key !== '(garbage collector)').sort((a, b) => b[1] - a[1]);
  for (const [key, us] of busiest.slice(0, 8)) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}
