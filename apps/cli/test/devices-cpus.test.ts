// A real CFS quota: `jepa devices` and Model.load run inside a cgroup made here, limited to half a CPU
// at its parent level (as `docker run --cpus 0.5` or a Kubernetes pod limit sets it), where Node's own
// availableParallelism() still counts every CPU of the affinity mask. Needs root and a writable cgroup
// cpu controller (v1 or v2), as scripts/setup.sh's machines have; without them the test fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { hostCpus } from '@jepa/native';
import { cliMain, REPO_ROOT } from '@jepa/testing';
import { afterAll, describe, expect, it } from 'vitest';

const main = cliMain();
const work = mkdtempSync(join(tmpdir(), 'jepa-devices-cpus-'));

interface CpuController {
  version: 1 | 2;
  mountPoint: string;
}

function cpuController(): CpuController {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    const mountPoint = left?.split(' ')[4];
    const [fsType, , options = ''] = right?.split(' ') ?? [];
    if (!mountPoint) continue;
    if (fsType === 'cgroup' && options.split(',').includes('cpu')) return { version: 1, mountPoint };
    if (fsType === 'cgroup2' && existsSync(join(mountPoint, 'cgroup.controllers'))) {
      if (readFileSync(join(mountPoint, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) return { version: 2, mountPoint };
    }
  }
  throw new Error('no cgroup cpu controller is mounted: this test needs one (v1 or v2) to set a real CFS quota');
}

/** outer (quota: half a CPU) / inner (no quota of its own), the process placed in inner */
function quotaCgroups(): { outer: string; inner: string; quotaFile: string } {
  const ctl = cpuController();
  const outer = join(ctl.mountPoint, `jepa-test-${process.pid}`);
  const inner = join(outer, 'inner');
  try {
    mkdirSync(outer);
    if (ctl.version === 2) {
      writeFileSync(join(ctl.mountPoint, 'cgroup.subtree_control'), '+cpu');
      writeFileSync(join(outer, 'cpu.max'), '50000 100000');
      writeFileSync(join(outer, 'cgroup.subtree_control'), '+cpu');
    } else {
      writeFileSync(join(outer, 'cpu.cfs_period_us'), '100000');
      writeFileSync(join(outer, 'cpu.cfs_quota_us'), '50000');
    }
    mkdirSync(inner);
  } catch (err) {
    throw new Error(`cannot make a cgroup with a CPU quota under ${ctl.mountPoint} (${(err as Error).message}): run the suite as root`);
  }
  return { outer, inner, quotaFile: join(outer, ctl.version === 2 ? 'cpu.max' : 'cpu.cfs_quota_us') };
}

const groups = quotaCgroups();
afterAll(() => {
  for (const dir of [groups.inner, groups.outer]) if (existsSync(dir)) rmdirSync(dir);
});

/** runs node with `args` as a process of the inner cgroup */
function inQuota(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync('sh', ['-c', `echo $$ > "${join(groups.inner, 'cgroup.procs')}" && exec "${process.execPath}" "$@"`, 'sh', ...args], {
    encoding: 'utf8',
    env: { ...process.env, JEPA_DEVICE: 'cpu', JEPA_THREADS: '', ...env },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('a CFS quota of half a CPU, set on the parent cgroup', () => {
  it('jepa devices reports it and defaults to one thread', () => {
    const report = JSON.parse(inQuota([main, 'devices', '--json']));
    expect(report.cpus.quota).toBe(0.5);
    expect(report.cpus.quotaSource).toBe(groups.quotaFile);
    expect(report.cpus.defaultThreads).toBe(1);
    expect(report.cpus.affinity).toBe(hostCpus().affinity);
  });

  it('a model loaded there without --threads gets one thread; Node itself still counts every CPU', () => {
    const model = forgeModel('hfvit', { seed: 5, path: join(work, 'hfvit.gguf') }).path;
    const script = join(work, 'load.mjs');
    writeFileSync(
      script,
      `import { availableParallelism } from 'node:os';\n` +
        `import { Model } from ${JSON.stringify(join(REPO_ROOT, 'packages/graph/dist/index.js'))};\n` +
        `const model = await Model.load(${JSON.stringify(model)});\n` +
        `console.log(JSON.stringify({ threads: model.threads, node: availableParallelism() }));\n` +
        `model.dispose();\n`,
    );
    const seen = JSON.parse(inQuota([script]));
    expect(seen.threads).toBe(1);
    // negative control: what the model would get from Node's count, on any machine with two CPUs or more
    expect(seen.node).toBe(hostCpus().affinity);
    // JEPA_THREADS overrides the quota, as --threads does
    expect(JSON.parse(inQuota([script], { JEPA_THREADS: '3' })).threads).toBe(3);
  });

  it('a JEPA_THREADS that is not a positive integer stops jepa serve before it listens, in one line', () => {
    const r = spawnSync(
      process.execPath,
      [main, 'serve', '-m', forgeModel('hfvit', { seed: 7, path: join(work, 'bad-env.gguf') }).path, '--port', '0'],
      {
        encoding: 'utf8',
        env: { ...process.env, JEPA_THREADS: '0' },
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('jepa: JEPA_THREADS=0 is not a positive integer\n');
  });

  it('jepa serve started there says one thread per model, and answers', async () => {
    const model = forgeModel('hfvit', { seed: 6, path: join(work, 'served.gguf') }).path;
    const child = spawn(
      'sh',
      ['-c', `echo $$ > "${join(groups.inner, 'cgroup.procs')}" && exec "${process.execPath}" "$@"`, 'sh', main, 'serve', '-m', model, '--port', '0'],
      {
        env: { ...process.env, JEPA_DEVICE: 'cpu', JEPA_THREADS: '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      let err = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`jepa serve did not get ready: ${err}`)), 60_000);
        child.stderr?.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const ready = /ready: (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
          if (ready?.[1]) {
            clearTimeout(timer);
            resolve(ready[1]);
          }
        });
        child.on('exit', (code) => reject(new Error(`jepa serve exited ${code}: ${err}`)));
      });
      expect(err).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+; 1 CPU thread per model; loading models/);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });

  it('negative control: outside the cgroup the default is every affinity CPU', () => {
    const report = JSON.parse(
      spawnSync(process.execPath, [main, 'devices', '--json'], { encoding: 'utf8', env: { ...process.env, JEPA_THREADS: '' } }).stdout,
    );
    expect(report.cpus.quota).toBe(hostCpus().quota);
    expect(report.cpus.defaultThreads).toBe(hostCpus().defaultThreads);
  });
});
