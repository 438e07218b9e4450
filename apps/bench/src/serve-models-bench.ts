// `jepa serve` with models as managed resources, in a child process on loopback: the first request to
// a cold model (its load included) against one to a warm model; 32 clients spread over two models
// against all on one; and the server's RSS over load/unload cycles (onnxruntime-node grows from 325
// to 994 MB over 10 such cycles, microsoft/onnxruntime#25325).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { pngChunk, rgbPngHeader } from '@jepa/preprocess';
import type { CliBuild } from './cli-builds.js';
import { peerModel } from './peers/peers-bench.js';
import { serve } from './serve-child.js';
import { median } from './stats.js';

export interface ServeModelsOptions {
  threads: number;
  type: string;
  dir: string;
  /** Cold and warm first requests, each. */
  repeats: number;
  clients: number;
  /** Timed requests per throughput row. */
  requests: number;
  cycles: number;
  cli: CliBuild;
}

export interface ServeModelsReport {
  model: string;
  modelBytes: number;
  threads: number;
  coldMs: number[];
  warmMs: number[];
  /** jepa_model_load_seconds of the cold requests' loads. */
  loadSeconds: number[];
  throughput: { models: number; clients: number; requests: number; seconds: number; requestsPerSecond: number; failed: number }[];
  /** VmRSS (kB) at start, then after each cycle's load (with one request) and after its unload. */
  rss: { start: number; loaded: number[]; unloaded: number[] };
}

function png(size: number, seed: number): Buffer {
  const raw = Buffer.alloc(size * (1 + 3 * size));
  for (let y = 0; y < size; y++)
    for (let x = 0; x < 3 * size; x++) raw[y * (1 + 3 * size) + 1 + x] = (128 + 100 * Math.sin((x + y * 3 + seed * 17) / 40)) & 255;
  return Buffer.concat([rgbPngHeader(size, size), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

async function post(url: string, body: string): Promise<number> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await r.arrayBuffer();
  return r.status;
}

async function timedEmbed(url: string, body: string): Promise<number> {
  const t0 = performance.now();
  const status = await post(`${url}/v1/embeddings`, body);
  if (status !== 200) throw new Error(`/v1/embeddings: ${status}`);
  return performance.now() - t0;
}

async function loadSeconds(url: string, id: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^jepa_model_load_seconds\\{model="${id}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

async function unload(url: string, id: string): Promise<void> {
  const status = await post(`${url}/v1/models/${id}/unload`, '{}');
  if (status !== 200) throw new Error(`unload ${id}: ${status}`);
}

export async function runServeModelsBench(o: ServeModelsOptions, log: (s: string) => void): Promise<ServeModelsReport> {
  const model = await peerModel(resolve(o.dir), o.type, log);
  const folder = mkdtempSync(join(tmpdir(), 'jepa-bench-models-'));
  const body = (id: string, seed = 1) => JSON.stringify({ model: id, input: [{ image: png(256, seed).toString('base64') }] });
  try {
    copyFileSync(model, join(folder, 'a.gguf'));
    copyFileSync(model, join(folder, 'b.gguf'));
    const server = await serve(o.cli, ['--models-dir', folder, '-t', String(o.threads)], log);
    const report: ServeModelsReport = {
      model,
      modelBytes: statSync(model).size,
      threads: o.threads,
      coldMs: [],
      warmMs: [],
      loadSeconds: [],
      throughput: [],
      rss: { start: rssKiB(server.pid), loaded: [], unloaded: [] },
    };
    try {
      // one load and request first: the addon, the thread pools and the decoder come in once per process
      await timedEmbed(server.url, body('a'));
      await unload(server.url, 'a');
      for (let i = 0; i < o.repeats; i++) {
        report.coldMs.push(await timedEmbed(server.url, body('a', i + 2)));
        report.loadSeconds.push(await loadSeconds(server.url, 'a'));
        report.warmMs.push(await timedEmbed(server.url, body('a', i + 3)));
        await unload(server.url, 'a');
        log(
          `cold ${report.coldMs.at(-1)!.toFixed(0)} ms (load ${report.loadSeconds.at(-1)!.toFixed(2)} s), warm ${report.warmMs.at(-1)!.toFixed(0)} ms`,
        );
      }
      for (const models of [1, 2]) {
        const ids = models === 1 ? ['a'] : ['a', 'b'];
        for (const id of ids) await timedEmbed(server.url, body(id));
        let started = 0;
        let failed = 0;
        let done = 0;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: o.clients }, async (_, c) => {
            while (started < o.requests) {
              const n = started++;
              if ((await post(`${server.url}/v1/embeddings`, body(ids[c % ids.length]!, n % 4))) === 200) done++;
              else failed++;
            }
          }),
        );
        const seconds = (performance.now() - t0) / 1000;
        report.throughput.push({ models, clients: o.clients, requests: done, seconds, requestsPerSecond: done / seconds, failed });
        log(`${o.clients} clients over ${models} model(s): ${(done / seconds).toFixed(2)} req/s`);
        for (const id of ids) await unload(server.url, id);
      }
      for (let i = 0; i < o.cycles; i++) {
        await timedEmbed(server.url, body('a'));
        report.rss.loaded.push(rssKiB(server.pid));
        await unload(server.url, 'a');
        report.rss.unloaded.push(rssKiB(server.pid));
        log(`cycle ${i + 1}: VmRSS ${report.rss.loaded.at(-1)} kB loaded, ${report.rss.unloaded.at(-1)} kB unloaded`);
      }
    } finally {
      await server.stop();
    }
    return report;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const mb = (kib: number) => (kib / 1024).toFixed(0);

export function serveModelsMarkdown(r: ServeModelsReport, type: string): string {
  const [one, two] = r.throughput;
  const u = r.rss.unloaded;
  return [
    `ViT-B/16 ${type} (${(r.modelBytes / 1e6).toFixed(0)} MB file), ${r.threads} threads, one 256x256 PNG per request, \`jepa serve --models-dir\` in a child process.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| first request, cold model (median of ${r.coldMs.length}) | ${median(r.coldMs).toFixed(0)} ms (its load ${median(r.loadSeconds).toFixed(2)} s) |`,
    `| first request, warm model (median of ${r.warmMs.length}) | ${median(r.warmMs).toFixed(0)} ms |`,
    one && two
      ? `| ${one.clients} clients, one model / spread over two | ${one.requestsPerSecond.toFixed(2)} / ${two.requestsPerSecond.toFixed(2)} req/s (${(two.requestsPerSecond / one.requestsPerSecond).toFixed(2)}x) |`
      : '',
    `| VmRSS at start (nothing loaded), loaded in cycle 1, after the unload of cycle 1 and of cycle ${u.length} | ${mb(r.rss.start)} / ${mb(r.rss.loaded[0] ?? 0)} / ${mb(u[0] ?? 0)} / ${mb(u.at(-1) ?? 0)} MB |`,
    `| VmRSS after each unload, min - max over ${u.length} cycles | ${mb(Math.min(...u))} - ${mb(Math.max(...u))} MB |`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}
