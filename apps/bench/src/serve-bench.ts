// `jepa serve` under load: N clients on loopback, each posting one image per request and waiting for
// the answer before the next, against the server in a child process, for every --max-batch x clients
// pair; beside each row the encoder alone at batch 8, timed in this process on either side of it.
// With several CLI builds (--cli), each serves from its own child and the builds take turns within
// every row, so that the machine's drift falls on all of them alike.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { pngChunk, rgbPngHeader } from '@jepa/preprocess';
import { Model, type EncoderContext, type EncoderInput } from '@jepa/graph';
import { type CliBuild, cliLegend, overBaseline, roundOrder } from './cli-builds.js';
import { runEncoderBench } from './encoder-bench.js';
import { peerModel } from './peers/peers-bench.js';
import { median, timeMs } from './stats.js';
import { readyUrl } from './serve-child.js';

export interface ServeBenchOptions {
  threads: number;
  clients: number[];
  maxBatch: number[];
  /** Timed requests per row (ignored when seconds is set). */
  requests: number;
  /** Timed seconds per row instead of a request count. */
  seconds?: number;
  type: string;
  size: number;
  dir: string;
  /** The builds of the command line that serve, in turn. */
  clis: CliBuild[];
  /** Turns of every build per row (the timed requests or seconds are per turn). */
  rounds: number;
}

export interface ServeRow {
  /** The label of the CLI build that served this row (A, B, ...). */
  cli: string;
  maxBatch: number;
  clients: number;
  /** The encoder alone at batch 8, items/s, timed right before and right after this row (the server idle). */
  encoderItemsPerSecond: number;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Graphs run in the timed window, by items per graph. */
  batches: Record<number, number>;
  failed: number;
}

export interface ServeReport {
  model: string;
  type: string;
  threads: number;
  imageSize: number;
  /** `jepa-bench encoder` at batch 8, items/s, before the first row. */
  encoderBench: number;
  clis: CliBuild[];
  rows: ServeRow[];
}

/** A size x size RGB PNG: smooth gradients with a little seeded noise, so it compresses like a photo. */
function photoPng(size: number, seed: number): Buffer {
  const raw = Buffer.alloc(size * (1 + 3 * size));
  let s = seed;
  for (let y = 0; y < size; y++) {
    const row = y * (1 + 3 * size);
    for (let x = 0; x < size; x++)
      for (let c = 0; c < 3; c++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        const smooth = 128 + 100 * Math.sin((x * (c + 1) + y * (3 - c) + seed * 17) / 40);
        raw[row + 1 + 3 * x + c] = Math.max(0, Math.min(255, Math.round(smooth + ((s >>> 28) - 8))));
      }
  }
  return Buffer.concat([rgbPngHeader(size, size), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

interface Child {
  url: string;
  stop: () => Promise<number | null>;
}

async function startServe(cli: CliBuild, model: string, threads: number, maxBatch: number, log: (s: string) => void): Promise<Child> {
  const child = spawn(
    process.execPath,
    [
      cli.path,
      'serve',
      '-m',
      model,
      '--port',
      '0',
      '-t',
      String(threads),
      '--max-batch',
      String(maxBatch),
      '--max-queue',
      '4096',
      '--timeout-ms',
      '600000',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const { url, exit } = await readyUrl(child, `jepa serve (${cli.path})`);
  log(`jepa serve (CLI ${cli.label}) --max-batch ${maxBatch}: ${url}`);
  return {
    url,
    stop: () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

async function batchCounts(url: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const cumulative = new Map<number, number>();
  for (const m of text.matchAll(/^jepa_batch_size_bucket\{le="(\d+)"\} (\d+)$/gm)) cumulative.set(Number(m[1]), Number(m[2]));
  const out = new Map<number, number>();
  let below = 0;
  for (const le of [...cumulative.keys()].sort((a, b) => a - b)) {
    out.set(le, cumulative.get(le)! - below);
    below = cumulative.get(le)!;
  }
  return out;
}

/** `clients` loops, each sending the next request once its last one is answered, until the count or time is used up. */
async function load(url: string, bodies: string[], clients: number, stopAt: { requests?: number; ms?: number }) {
  const latencies: number[] = [];
  let started = 0;
  let failed = 0;
  const t0 = performance.now();
  const more = () => (stopAt.ms !== undefined ? performance.now() - t0 < stopAt.ms : started < stopAt.requests!);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (more()) {
        const body = bodies[started++ % bodies.length]!;
        const r0 = performance.now();
        const r = await fetch(`${url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await r.arrayBuffer();
        if (r.status === 200) latencies.push(performance.now() - r0);
        else failed++;
      }
    }),
  );
  return { latencies, failed, seconds: (performance.now() - t0) / 1000 };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)] ?? NaN;
}

/** The encoder alone at batch 8 in this process, as encoder-bench times it: items/s over a few graphs. */
async function encoderRate(ctx: EncoderContext, x: EncoderInput, graphs: number): Promise<number> {
  const ms = await timeMs(async () => {
    for (let i = 0; i < graphs; i++) await ctx.encode(x);
  });
  return (8 * graphs) / (ms / 1000);
}

export async function runServeBench(o: ServeBenchOptions, log: (s: string) => void): Promise<ServeReport> {
  const model = await peerModel(resolve(o.dir), o.type, log);
  const bodies = [1, 2, 3, 4].map((seed) => JSON.stringify({ input: [{ image: photoPng(o.size, seed).toString('base64') }] }));
  const [bench] = await runEncoderBench(
    { models: [model], dtypes: [], threads: [o.threads], batches: [8], sizes: [], frames: [], repeat: 5, warmup: 1, dir: o.dir, noFlash: false },
    log,
  );
  // The machine's speed drifts (other work on it): each row is set against the encoder timed on either side of it.
  const alone = await Model.load(model, { threads: o.threads });
  const ctx = alone.createContext({ maxBatch: 8 });
  const size = alone.spec.enc.imgSize;
  const x = { data: Float32Array.from({ length: 8 * 3 * size * size }, (_, i) => Math.sin(i * 0.001) * 1.5), shape: [8, 3, size, size] };
  await ctx.encode(x);
  const rows: ServeRow[] = [];
  for (const maxBatch of o.maxBatch) {
    const servers: { cli: CliBuild; server: Child }[] = [];
    try {
      for (const cli of o.clis) servers.push({ cli, server: await startServe(cli, model, o.threads, maxBatch, log) });
      for (const clients of o.clients) {
        for (const { server } of servers) await load(server.url, bodies, clients, { requests: 2 * clients });
        const encoderBefore = await encoderRate(ctx, x, 3);
        const turns = servers.map(() => ({ latencies: [] as number[], failed: 0, seconds: 0, batches: {} as Record<number, number> }));
        for (let round = 0; round < o.rounds; round++)
          for (const i of roundOrder([...servers.keys()], round)) {
            const { url } = servers[i]!.server;
            const before = await batchCounts(url);
            const run = await load(url, bodies, clients, o.seconds !== undefined ? { ms: o.seconds * 1000 } : { requests: o.requests });
            const after = await batchCounts(url);
            const turn = turns[i]!;
            turn.latencies.push(...run.latencies);
            turn.failed += run.failed;
            turn.seconds += run.seconds;
            for (const [size, n] of after)
              if (n - (before.get(size) ?? 0) > 0) turn.batches[size] = (turn.batches[size] ?? 0) + n - (before.get(size) ?? 0);
          }
        const encoderItemsPerSecond = (encoderBefore + (await encoderRate(ctx, x, 3))) / 2;
        servers.forEach(({ cli }, i) => {
          const turn = turns[i]!;
          const row: ServeRow = {
            cli: cli.label,
            maxBatch,
            clients,
            encoderItemsPerSecond,
            requests: turn.latencies.length,
            seconds: turn.seconds,
            requestsPerSecond: turn.latencies.length / turn.seconds,
            p50Ms: median(turn.latencies),
            p99Ms: percentile(turn.latencies, 0.99),
            batches: turn.batches,
            failed: turn.failed,
          };
          rows.push(row);
          log(
            `${servers.length > 1 ? `CLI ${cli.label}, ` : ''}max-batch ${maxBatch}, ${clients} clients: ${row.requestsPerSecond.toFixed(2)} req/s (encoder alone ${encoderItemsPerSecond.toFixed(2)} items/s), p50 ${row.p50Ms.toFixed(0)} ms, p99 ${row.p99Ms.toFixed(0)} ms`,
          );
        });
      }
    } finally {
      for (const { cli, server } of servers) {
        const code = await server.stop();
        if (code !== 0) log(`jepa serve (CLI ${cli.label}) exited with ${code}`);
      }
    }
  }
  ctx.dispose();
  alone.dispose();
  return { model, type: o.type, threads: o.threads, imageSize: o.size, encoderBench: bench!.itemsPerSecond, clis: o.clis, rows };
}

function graphSizes(row: ServeRow): string {
  return Object.entries(row.batches)
    .map(([size, n]) => `${size}: ${n}`)
    .join(', ');
}

function requestsCell(row: ServeRow): string {
  return `${row.requests}${row.failed ? ` (+${row.failed} failed)` : ''}`;
}

export function serveMarkdown(r: ServeReport): string {
  const head = [
    `ViT-B/16 ${r.type}, ${r.threads} threads, one ${r.imageSize}x${r.imageSize} PNG per request (decoded and resized to 224 by the server).`,
    `\`jepa-bench encoder\` at batch 8 before the rows: ${r.encoderBench.toFixed(2)} items/s. "encoder b8" is the same encoder timed in the bench process right before and after each row (the server idle then); "x encoder" is req/s over it.`,
  ];
  if (r.clis.length > 1) return [...head, '', comparisonMarkdown(r)].join('\n');
  return [
    ...head,
    '',
    '| max-batch | clients | requests | req/s | encoder b8 items/s | x encoder | p50 ms | p99 ms | p99 / p50 | graphs by items per graph |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...r.rows.map(
      (row) =>
        `| ${row.maxBatch} | ${row.clients} | ${requestsCell(row)} | ${row.requestsPerSecond.toFixed(2)} | ${row.encoderItemsPerSecond.toFixed(2)} | ${(row.requestsPerSecond / row.encoderItemsPerSecond).toFixed(2)} | ${row.p50Ms.toFixed(0)} | ${row.p99Ms.toFixed(0)} | ${(row.p99Ms / row.p50Ms).toFixed(2)} | ${graphSizes(row)} |`,
    ),
  ].join('\n');
}

/** Several builds: a row per build at each max-batch x clients, with req/s, p50 and p99 over the first build's. */
function comparisonMarkdown(r: ServeReport): string {
  const base = r.clis[0]!.label;
  const baseline = (row: ServeRow) => r.rows.find((b) => b.cli === base && b.maxBatch === row.maxBatch && b.clients === row.clients)!;
  return [
    `The builds took turns within each row, the timed requests of every turn summed per build; "x ${base}" is the value over CLI ${base}'s in the same row.`,
    '',
    cliLegend(r.clis),
    '',
    `| max-batch | clients | cli | requests | req/s | x ${base} | encoder b8 items/s | p50 ms | x ${base} | p99 ms | x ${base} | graphs by items per graph |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.rows.map((row) => {
      const b = baseline(row);
      const isBase = row.cli === base;
      return `| ${row.maxBatch} | ${row.clients} | ${row.cli} | ${requestsCell(row)} | ${row.requestsPerSecond.toFixed(2)} | ${overBaseline(row.requestsPerSecond, b.requestsPerSecond, isBase)} | ${row.encoderItemsPerSecond.toFixed(2)} | ${row.p50Ms.toFixed(0)} | ${overBaseline(row.p50Ms, b.p50Ms, isBase)} | ${row.p99Ms.toFixed(0)} | ${overBaseline(row.p99Ms, b.p99Ms, isBase)} | ${graphSizes(row)} |`;
    }),
  ].join('\n');
}
