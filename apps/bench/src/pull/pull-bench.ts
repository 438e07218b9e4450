// Pull throughput against the loopback Hub: a large seeded file pulled through @jepa/hub (Range-able
// download, sha256 as it is written), against the bound, the same bytes copied by a plain stream to
// the same disk, a plain fetch of the same URL into a file (what HTTP alone costs in Node), and curl
// (what a C client gets from the same server on the same cores).
import { execFile, execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, openSync, closeSync, fsyncSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { type HubSettings, pullSnapshot } from '@jepa/hub';
import { childrenCpuMs, processCpuMs } from './proc-cpu.js';

export interface PullBenchOptions {
  sizeMib: number;
  rounds: number;
  dir: string;
  fsync: boolean;
  /** Another build of @jepa/hub (its dist folder), timed too in the same rounds: a change side by side with what it replaces. */
  compareHub?: string;
}

/** 'stream copy (bound)', 'curl → file', 'fetch → file', '@jepa/hub pull', and '@jepa/hub pull (<folder>)' with --compare-hub. */
export type PullWay = string;

const CURL = '/usr/bin/curl';
const BLOCK = 1 << 20;

export interface PullRow {
  way: PullWay;
  mbPerS: number[];
  medianMbPerS: number;
  ofBound: number;
  /** The client's CPU time (user + system) per GB written: this process's, or curl's; its own cost, whatever else runs. */
  cpuMsPerGb: number[];
  medianCpuMsPerGb: number;
  /** The loopback Hub's process's CPU time per GB served meanwhile (0 for the stream copy). */
  hubCpuMsPerGb: number[];
  medianHubCpuMsPerGb: number;
}

const REPO = 'bench/large';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The seeded file, made once (random bytes, kept under --dir for the next run). */
function seedFile(dir: string, sizeMib: number): string {
  const path = join(dir, `seed-${sizeMib}MiB.safetensors`);
  if (existsSync(path) && statSync(path).size === sizeMib * 2 ** 20) return path;
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < sizeMib; i++) writeFileSync(fd, randomBytes(2 ** 20));
  } finally {
    closeSync(fd);
  }
  return path;
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function startHub(checkpoint: string): Promise<{ url: string; commit: string; pid: number; stop: () => Promise<void> }> {
  const child = fork(new URL('./hub-process.js', import.meta.url), [REPO, checkpoint], { stdio: 'inherit' });
  const [{ url, commit }] = (await once(child, 'message')) as [{ url: string; commit: string }];
  return {
    url,
    commit,
    pid: child.pid as number,
    stop: async () => {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

export async function runPullBench(o: PullBenchOptions, log: (line: string) => void): Promise<{ rows: PullRow[]; bytes: number }> {
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  const seed = seedFile(dir, o.sizeMib);
  const bytes = statSync(seed).size;
  log(`seed ${seed} (${bytes} bytes); hashing it for the loopback Hub`);
  const hub = await startHub(seed);
  const sha = createHash('sha256');
  for await (const chunk of createReadStream(seed)) sha.update(chunk as Buffer);
  const lfsUrl = `${hub.url}/lfs/${sha.digest('hex')}/model.safetensors`;
  const out = join(dir, 'out');
  const pullThrough = async (pull: typeof pullSnapshot) => {
    const settings: HubSettings = {
      endpoint: hub.url,
      cacheDir: join(out, 'hub'),
      jepaCache: join(out, 'jepa'),
      offline: false,
      retryDelayMs: 100,
      attempts: 3,
    };
    return (await pull({ repo: REPO, revision: hub.commit, type: 'f32' }, { settings }, hub.commit)).checkpoint;
  };
  const ways: Record<PullWay, () => Promise<string>> = {
    'stream copy (bound)': async () => {
      const to = join(out, 'copy.bin');
      // in 1 MiB blocks: with the streams' 64 KiB, Node's copy costs more CPU than curl's download and is no bound
      await pipeline(createReadStream(seed, { highWaterMark: BLOCK }), createWriteStream(to, { highWaterMark: BLOCK }));
      return to;
    },
    'curl → file': async () => {
      const to = join(out, 'curled.bin');
      await promisify(execFile)(CURL, ['-sS', '-L', '-o', to, lfsUrl]);
      return to;
    },
    'fetch → file': async () => {
      const to = join(out, 'fetched.bin');
      const response = await fetch(lfsUrl);
      if (!response.ok || !response.body) throw new Error(`${lfsUrl}: HTTP ${response.status}`);
      await pipeline(Readable.fromWeb(response.body), createWriteStream(to));
      return to;
    },
    '@jepa/hub pull': () => pullThrough(pullSnapshot),
  };
  if (o.compareHub !== undefined) {
    const other = (await import(pathToFileURL(join(resolve(o.compareHub), 'index.js')).href)) as { pullSnapshot: typeof pullSnapshot };
    ways[`@jepa/hub pull (${o.compareHub})`] = () => pullThrough(other.pullSnapshot);
  }
  const PULL_WAYS = Object.keys(ways);
  const samples = new Map<PullWay, number[]>(PULL_WAYS.map((w) => [w, []]));
  const cpuSamples = new Map<PullWay, number[]>(PULL_WAYS.map((w) => [w, []]));
  const hubCpuSamples = new Map<PullWay, number[]>(PULL_WAYS.map((w) => [w, []]));
  const gb = bytes / 1e9;
  try {
    for (let round = 0; round < o.rounds; round++) {
      // a rotating order, so that no way always follows the same one
      for (let k = 0; k < PULL_WAYS.length; k++) {
        const way = PULL_WAYS[(round + k) % PULL_WAYS.length] as PullWay;
        rmSync(out, { recursive: true, force: true });
        mkdirSync(out, { recursive: true });
        // the last way's dirty pages written back first, so that they do not slow this one
        execFileSync('sync');
        const cpu0 = process.cpuUsage();
        const children0 = childrenCpuMs();
        const hub0 = processCpuMs(hub.pid);
        const t0 = performance.now();
        const written = await ways[way]();
        if (o.fsync) syncFile(written);
        const seconds = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        // curl's time is its own; this process only waited for it
        const clientMs = way === 'curl → file' ? childrenCpuMs() - children0 : (cpu.user + cpu.system) / 1000;
        cpuSamples.get(way)?.push(clientMs / gb);
        hubCpuSamples.get(way)?.push((processCpuMs(hub.pid) - hub0) / gb);
        if (statSync(written).size !== bytes) throw new Error(`${way}: wrote ${statSync(written).size} of ${bytes} bytes`);
        const mbPerS = bytes / 1e6 / seconds;
        samples.get(way)?.push(mbPerS);
        log(
          `round ${round + 1}: ${way} ${mbPerS.toFixed(0)} MB/s, client ${cpuSamples.get(way)?.at(-1)?.toFixed(0)} CPU ms/GB, Hub ${hubCpuSamples.get(way)?.at(-1)?.toFixed(0)}`,
        );
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    await hub.stop();
  }
  const bound = median(samples.get('stream copy (bound)') ?? []);
  const rows = PULL_WAYS.map((way) => {
    const mbPerS = samples.get(way) ?? [];
    const cpuMsPerGb = cpuSamples.get(way) ?? [];
    const hubCpuMsPerGb = hubCpuSamples.get(way) ?? [];
    return {
      way,
      mbPerS,
      medianMbPerS: median(mbPerS),
      ofBound: median(mbPerS) / bound,
      cpuMsPerGb,
      medianCpuMsPerGb: median(cpuMsPerGb),
      hubCpuMsPerGb,
      medianHubCpuMsPerGb: median(hubCpuMsPerGb),
    };
  });
  return { rows, bytes };
}

export function pullMarkdown(rows: PullRow[], o: PullBenchOptions): string {
  const head = `| ${o.sizeMib} MiB${o.fsync ? ', fsync included' : ''} | median MB/s | of the bound | client CPU ms/GB | Hub CPU ms/GB | rounds (MB/s) |\n|---|---:|---:|---:|---:|---|`;
  const body = rows.map(
    (r) =>
      `| ${r.way} | ${r.medianMbPerS.toFixed(0)} | ${(100 * r.ofBound).toFixed(0)}% | ${r.medianCpuMsPerGb.toFixed(0)} | ${r.medianHubCpuMsPerGb.toFixed(0)} | ${r.mbPerS.map((x) => x.toFixed(0)).join(', ')} |`,
  );
  return [head, ...body].join('\n');
}
