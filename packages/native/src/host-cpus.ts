import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { NativeError } from './errors.js';

/** The CPUs this process may use, and the compute threads a model gets when none are asked for. */
export interface HostCpus {
  /** CPUs the scheduler lets this process run on (its affinity mask: `taskset`, `--cpuset-cpus`). */
  affinity: number;
  /** The tightest CFS quota over the process's cgroup and its parents, in CPUs (`--cpus 1.5` is 1.5); null when unlimited or unreadable. */
  quota: number | null;
  /** Where the quota was read (a cpu.max or cpu.cfs_quota_us file), or null. */
  quotaSource: string | null;
  /** Physical cores among the affinity CPUs (SMT siblings counted once); null where the topology cannot be read. */
  physicalCores: number | null;
  /** JEPA_THREADS, when set: it replaces the count below. */
  threadsFromEnv: number | null;
  /** The default thread count: JEPA_THREADS, else the affinity CPUs capped by the quota rounded up, at least 1. */
  defaultThreads: number;
}

export interface HostCpusOptions {
  /** A directory standing for `/` (tests give a copy of a machine's proc and sys files). */
  root?: string;
  /** The environment to read JEPA_THREADS from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

function threadsFromEnv(env: NodeJS.ProcessEnv): number | null {
  const raw = env.JEPA_THREADS;
  if (raw === undefined || raw.trim() === '') return null;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 1) throw new NativeError('BAD_OPTION', `JEPA_THREADS=${raw} is not a positive integer`);
  return threads;
}

const read = (root: string, path: string): string | null => {
  try {
    return readFileSync(root + path, 'utf8');
  } catch {
    return null;
  }
};

/** "0-3,8,10-11" -> [0, 1, 2, 3, 8, 10, 11] */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    if (part === '') continue;
    const [lo, hi] = part.split('-').map(Number);
    if (lo === undefined || !Number.isInteger(lo)) return [];
    const end = hi ?? lo;
    if (!Number.isInteger(end) || end < lo) return [];
    for (let cpu = lo; cpu <= end; cpu++) cpus.push(cpu);
  }
  return cpus;
}

function affinityCpus(root: string): number[] | null {
  const status = read(root, '/proc/self/status');
  const list = status && /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  const cpus = list ? parseCpuList(list) : [];
  return cpus.length > 0 ? cpus : null;
}

interface CgroupMount {
  version: 1 | 2;
  /** the hierarchy's path mounted there (not "/" inside some containers) */
  hierarchyRoot: string;
  mountPoint: string;
}

// mountinfo escapes space, tab, newline and backslash as octal
const unescapeMount = (field: string) => field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));

function cgroupMounts(root: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of (read(root, '/proc/self/mountinfo') ?? '').split('\n')) {
    const [mountFields, fsFields] = line.split(' - ');
    if (!mountFields || !fsFields) continue;
    const fields = mountFields.split(' ');
    const [fsType, , superOptions = ''] = fsFields.split(' ');
    const hierarchyRoot = fields[3];
    const mountPoint = fields[4];
    if (hierarchyRoot === undefined || mountPoint === undefined) continue;
    if (fsType === 'cgroup2') mounts.push({ version: 2, hierarchyRoot: unescapeMount(hierarchyRoot), mountPoint: unescapeMount(mountPoint) });
    else if (fsType === 'cgroup' && superOptions.split(',').includes('cpu'))
      mounts.push({ version: 1, hierarchyRoot: unescapeMount(hierarchyRoot), mountPoint: unescapeMount(mountPoint) });
  }
  return mounts;
}

/** The directory of this process's cgroup under the mount, or the mount itself when the path lies outside what is mounted. */
function cgroupDir(mount: CgroupMount, path: string): string {
  const base = mount.mountPoint.replace(/\/$/, '');
  if (mount.hierarchyRoot === '/') return base + (path === '/' ? '' : path);
  if (path === mount.hierarchyRoot) return base;
  if (path.startsWith(`${mount.hierarchyRoot}/`)) return base + path.slice(mount.hierarchyRoot.length);
  return base;
}

function quotaAt(root: string, dir: string, version: 1 | 2): { cpus: number; file: string } | null {
  if (version === 2) {
    const file = `${dir}/cpu.max`;
    const [limit, period] = (read(root, file) ?? '').trim().split(/\s+/);
    const cpus = Number(limit) / Number(period);
    return limit !== 'max' && Number.isFinite(cpus) && cpus > 0 ? { cpus, file } : null;
  }
  const file = `${dir}/cpu.cfs_quota_us`;
  const quota = Number((read(root, file) ?? '').trim());
  const period = Number((read(root, `${dir}/cpu.cfs_period_us`) ?? '').trim());
  const cpus = quota / period;
  return quota > 0 && Number.isFinite(cpus) && cpus > 0 ? { cpus, file } : null;
}

/**
 * The tightest quota from the process's cgroup up to the mount: the kernel enforces every level's.
 * Node's availableParallelism() does not serve here: its libuv misses a cgroup v1 `cpu` controller
 * mounted alone, rounds 1.5 CPUs down to 1 and ignores a quota under one CPU.
 */
function cgroupQuota(root: string): { cpus: number; file: string } | null {
  const entries = (read(root, '/proc/self/cgroup') ?? '')
    .split('\n')
    .map((line) => /^(\d+):([^:]*):(.*)$/.exec(line))
    .filter((m) => m !== null);
  const mounts = cgroupMounts(root);
  const v1 = entries.find((m) => m[2]?.split(',').includes('cpu'));
  const v2 = entries.find((m) => m[1] === '0' && m[2] === '');
  const v1Mount = mounts.find((m) => m.version === 1);
  const v2Mount = mounts.find((m) => m.version === 2);
  // a v1 cpu controller, where there is one, holds the quota; the unified hierarchy of a hybrid host has none
  const [mount, path] = v1 && v1Mount ? [v1Mount, v1[3]] : v2 && v2Mount ? [v2Mount, v2[3]] : [];
  if (!mount || path === undefined) return null;
  const top = mount.mountPoint.replace(/\/$/, '');
  let tightest: { cpus: number; file: string } | null = null;
  for (let dir = cgroupDir(mount, path); ; dir = dir.slice(0, dir.lastIndexOf('/'))) {
    const here = quotaAt(root, dir, mount.version);
    if (here && (!tightest || here.cpus < tightest.cpus)) tightest = here;
    if (dir === top || !dir.startsWith(`${top}/`)) break;
  }
  return tightest;
}

function physicalCores(root: string, cpus: number[]): number | null {
  const cores = new Set<string>();
  for (const cpu of cpus) {
    const topology = `/sys/devices/system/cpu/cpu${cpu}/topology`;
    const siblings = read(root, `${topology}/core_cpus_list`) ?? read(root, `${topology}/thread_siblings_list`);
    if (siblings === null) return null;
    cores.add(siblings.trim());
  }
  return cores.size;
}

/** The affinity CPUs and the quota, and the thread count they give unless JEPA_THREADS sets it. */
function threadBudget(root: string, env: NodeJS.ProcessEnv) {
  const fromEnv = threadsFromEnv(env);
  const allowed = affinityCpus(root);
  const affinity = allowed?.length ?? availableParallelism();
  const quota = cgroupQuota(root);
  const threads = fromEnv ?? Math.max(1, Math.min(affinity, quota ? Math.ceil(quota.cpus) : affinity));
  return { fromEnv, allowed, affinity, quota, threads };
}

export function hostCpus(options: HostCpusOptions = {}): HostCpus {
  const root = options.root ?? '';
  const { fromEnv, allowed, affinity, quota, threads } = threadBudget(root, options.env ?? process.env);
  return {
    affinity,
    quota: quota?.cpus ?? null,
    quotaSource: quota?.file ?? null,
    physicalCores: allowed ? physicalCores(root, allowed) : null,
    threadsFromEnv: fromEnv,
    defaultThreads: threads,
  };
}

/** Compute threads for a model or backend given none: see HostCpus.defaultThreads. */
export function defaultThreads(): number {
  return threadBudget('', process.env).threads;
}
