// hostCpus() over copies of the proc and sys files of machines this one is not: cgroup v1 as Docker
// mounts it, cgroup v2 with nested quotas, a hybrid host, and SMT siblings. The live machine's
// answer is checked against lscpu, and a real cgroup quota in apps/cli/test/devices-cpus.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultThreads, hostCpus, parseCpuList } from '../src/index.js';

function machine(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'jepa-host-cpus-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const status = (cpus: string) => `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${cpus}\nMems_allowed_list:\t0\n`;
const mountinfo = (...lines: string[]) => `${lines.join('\n')}\n`;
/** cpu N's sibling list, for N in 0..count-1, on a machine with `threadsPerCore` siblings per core */
function topology(count: number, threadsPerCore: number): Record<string, string> {
  const cores = count / threadsPerCore;
  const files: Record<string, string> = {};
  for (let cpu = 0; cpu < count; cpu++) {
    const core = cpu % cores;
    const siblings = Array.from({ length: threadsPerCore }, (_, t) => core + t * cores);
    files[`/sys/devices/system/cpu/cpu${cpu}/topology/core_cpus_list`] = `${siblings.join(',')}\n`;
  }
  return files;
}

describe('parseCpuList', () => {
  it('ranges and single CPUs', () => {
    expect(parseCpuList('0-3,8,10-11\n')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('5')).toEqual([5]);
  });
  it('a malformed list is no list', () => {
    expect(parseCpuList('3-1')).toEqual([]);
    expect(parseCpuList('a-b')).toEqual([]);
  });
});

describe('the CFS quota caps the default threads', () => {
  it('cgroup v1 as Docker mounts it: the hierarchy root is the container, 1.5 CPUs round up to 2', () => {
    const root = machine({
      '/proc/self/status': status('0-7'),
      '/proc/self/cgroup': '12:pids:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n',
      '/proc/self/mountinfo': mountinfo(
        '700 690 0:28 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs rw',
        '705 700 0:31 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct',
        '706 700 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory',
      ),
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
      ...topology(8, 1),
    });
    expect(hostCpus({ root, env: {} })).toEqual({
      affinity: 8,
      quota: 1.5,
      quotaSource: '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us',
      physicalCores: 8,
      threadsFromEnv: null,
      defaultThreads: 2,
    });
  });

  it('cgroup v2: the tightest level between the leaf and the mount, a leaf without a limit included', () => {
    const root = machine({
      '/proc/self/status': status('0-15'),
      '/proc/self/cgroup': '0::/kubepods/pod1/ctr\n',
      '/proc/self/mountinfo': mountinfo('30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate'),
      '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '250000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '800000 100000\n',
      ...topology(16, 2),
    });
    const cpus = hostCpus({ root });
    expect(cpus.quota).toBe(2.5);
    expect(cpus.quotaSource).toBe('/sys/fs/cgroup/kubepods/pod1/cpu.max');
    expect(cpus.defaultThreads).toBe(3);
    expect(cpus.physicalCores).toBe(8);
  });

  it('a quota under one CPU still gives one thread', () => {
    const root = machine({
      '/proc/self/status': status('0-3'),
      '/proc/self/cgroup': '0::/slow\n',
      '/proc/self/mountinfo': mountinfo('30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw'),
      '/sys/fs/cgroup/slow/cpu.max': '25000 100000\n',
    });
    expect(hostCpus({ root })).toMatchObject({ affinity: 4, quota: 0.25, defaultThreads: 1, physicalCores: null });
  });

  it('a hybrid host reads the v1 cpu controller, not the unified hierarchy without one', () => {
    const root = machine({
      '/proc/self/status': status('0-3'),
      '/proc/self/cgroup': '3:cpuset:/\n1:cpu:/jobs/a\n0::/\n',
      '/proc/self/mountinfo': mountinfo(
        '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
        '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
        '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
      ),
      '/sys/fs/cgroup/cpu/jobs/a/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/jobs/a/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu/jobs/cpu.cfs_quota_us': '100000\n',
      '/sys/fs/cgroup/cpu/jobs/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/unified/cpu.max': '50000 100000\n',
    });
    expect(hostCpus({ root })).toMatchObject({ quota: 1, quotaSource: '/sys/fs/cgroup/cpu/jobs/cpu.cfs_quota_us', defaultThreads: 1 });
  });

  it('a v1 cpu line without a v1 mount (a container that mounts only cgroup2) reads cgroup v2', () => {
    const root = machine({
      '/proc/self/status': status('0-3'),
      '/proc/self/cgroup': '2:cpu,cpuacct:/\n0::/\n',
      '/proc/self/mountinfo': mountinfo('30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw'),
      '/sys/fs/cgroup/cpu.max': '200000 100000\n',
    });
    expect(hostCpus({ root })).toMatchObject({ quota: 2, quotaSource: '/sys/fs/cgroup/cpu.max', defaultThreads: 2 });
  });

  it('negative control: no quota anywhere leaves every affinity CPU', () => {
    const root = machine({
      '/proc/self/status': status('0-5'),
      '/proc/self/cgroup': '0::/user.slice\n',
      '/proc/self/mountinfo': mountinfo('30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw'),
      '/sys/fs/cgroup/user.slice/cpu.max': 'max 100000\n',
    });
    expect(hostCpus({ root })).toMatchObject({ affinity: 6, quota: null, quotaSource: null, defaultThreads: 6 });
  });
});

describe('JEPA_THREADS', () => {
  const root = machine({
    '/proc/self/status': status('0-3'),
    '/proc/self/cgroup': '0::/box\n',
    '/proc/self/mountinfo': mountinfo('30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw'),
    '/sys/fs/cgroup/box/cpu.max': '100000 100000\n',
  });

  it('sets the default over the quota', () => {
    expect(hostCpus({ root, env: { JEPA_THREADS: '3' } })).toMatchObject({ quota: 1, threadsFromEnv: 3, defaultThreads: 3 });
    expect(hostCpus({ root, env: {} })).toMatchObject({ quota: 1, threadsFromEnv: null, defaultThreads: 1 });
    expect(hostCpus({ root, env: { JEPA_THREADS: '' } }).defaultThreads).toBe(1);
  });

  it('anything but a positive integer is refused in one line', () => {
    for (const bad of ['0', '-2', '1.5', 'four'])
      expect(() => hostCpus({ root, env: { JEPA_THREADS: bad } })).toThrow(new RegExp(`^JEPA_THREADS=${bad} is not a positive integer$`));
  });
});

describe('physical cores among the CPUs this process may run on', () => {
  it('SMT siblings count once; an affinity of one thread per core counts each', () => {
    const files = topology(8, 2); // cores 0..3, siblings N and N+4
    expect(hostCpus({ root: machine({ ...files, '/proc/self/status': status('0-7') }) }).physicalCores).toBe(4);
    expect(hostCpus({ root: machine({ ...files, '/proc/self/status': status('0,4') }) }).physicalCores).toBe(1);
    expect(hostCpus({ root: machine({ ...files, '/proc/self/status': status('0-3') }) }).physicalCores).toBe(4);
  });

  it('kernels before 5.7 name the siblings thread_siblings_list', () => {
    const root = machine({
      '/proc/self/status': status('0-1'),
      '/sys/devices/system/cpu/cpu0/topology/thread_siblings_list': '0-1\n',
      '/sys/devices/system/cpu/cpu1/topology/thread_siblings_list': '0-1\n',
    });
    expect(hostCpus({ root }).physicalCores).toBe(1);
  });
});

describe('this machine', () => {
  it("physical cores equal lscpu's distinct (core, socket) pairs over the affinity CPUs", () => {
    const r = spawnSync('lscpu', ['-p=CPU,CORE,SOCKET'], { encoding: 'utf8' });
    if (r.error) throw new Error(`lscpu did not run (${r.error.message}): it comes with util-linux`);
    const cpus = hostCpus();
    const allowed = new Set(parseCpuList(/^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? ''));
    const cores = new Set(
      r.stdout
        .split('\n')
        .filter((l) => /^\d/.test(l))
        .map((l) => l.split(','))
        .filter(([cpu]) => allowed.has(Number(cpu)))
        .map(([, core, socket]) => `${socket}:${core}`),
    );
    expect(cpus.physicalCores).toBe(cores.size);
    expect(cpus.affinity).toBe(allowed.size);
    expect(defaultThreads()).toBe(cpus.defaultThreads);
  });
});
