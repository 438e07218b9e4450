// `jepa-bench soak`: `jepa serve` on loopback under mixed traffic for a bounded time, with hostile and
// careless clients meanwhile: slowloris headers and bodies, disconnects mid-request and mid-response,
// bursts at 10x the queue, and SIGTERM at the end with work in flight. It records requests served,
// p50 / p99 per route, /health p99, the server's RSS, V8 heap and open fds at start, a quarter in (warm),
// half way and at the end, and every status seen; it fails (exit 1) on a 5xx other than 503 / 504, on a
// /health p99 past its bound, on fd growth from start or RSS growth from the warm sample past their bounds
// (a leak grows with the requests served; V8's young generation and the allocators size themselves to the
// load in the first seconds and then stay), or on a shutdown that does not finish the work in flight.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { deflateSync } from 'node:zlib';
import { encodeNpy, pngChunk, rgbPngHeader } from '@jepa/preprocess';
import { readyUrl } from '../serve-child.js';

export interface SoakOptions {
  cli: string;
  model: string;
  seconds: number;
  clients: number;
  maxQueue: number;
  slowClients: number;
  threads: number;
  /** Bounds: the bench fails past any of them. */
  healthP99Ms: number;
  rssGrowthMib: number;
  fdGrowth: number;
  /** A slowloris socket the server has not closed after this many seconds is a violation. */
  slowCloseS: number;
  /** NODE_OPTIONS for the server alone (V8 flags such as --max-semi-space-size), the bench's own clients unaffected. */
  serverNodeOptions?: string;
}

/** The server's --timeout-ms: a request (its headers and body included) not done in this gets 408 or 504. */
const REQUEST_TIMEOUT_MS = 20_000;

interface Sample {
  at: string;
  seconds: number;
  rssMib: number;
  fds: number;
  /** The server's V8 heap as its /metrics report it (prom-client's defaults): committed, of which the young generation, and memory outside it held by JS objects. */
  heapMib: number;
  newSpaceMib: number;
  externalMib: number;
}

export interface SoakReport {
  options: Omit<SoakOptions, 'cli'>;
  seconds: number;
  served: number;
  routes: Record<string, { requests: number; ok: number; p50Ms: number; p99Ms: number }>;
  health: { polls: number; p50Ms: number; p99Ms: number; maxMs: number; failed: number };
  statuses: Record<string, number>;
  errorCodes: Record<string, number>;
  faults: Record<string, number>;
  /** How long the server let a slowloris socket live before closing it (ms), and how many were still open at the end. */
  slowloris: { closedByServer: number; heldP50Ms: number; heldMaxMs: number; openAtEnd: number };
  samples: Sample[];
  shutdown: { inFlight: number; answered: Record<string, number>; exitCode: number | null; ms: number };
  violations: string[];
}

function png(size: number, seed: number): Buffer {
  const raw = Buffer.alloc(size * (1 + 3 * size));
  for (let y = 0; y < size; y++) for (let x = 0; x < 3 * size; x++) raw[y * (1 + 3 * size) + 1 + x] = (x * 7 + y * 13 + seed * 31) & 255;
  return Buffer.concat([rgbPngHeader(size, size), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

function framesNpy(frames: number, size: number, seed: number): Buffer {
  const data = new Uint8Array(frames * size * size * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 11 + seed * 5) & 255;
  return Buffer.from(encodeNpy(data, [frames, size, size, 3]));
}

const b64 = (b: Buffer) => b.toString('base64');

/** The q-th percentile (nearest rank) of a list of latencies. */
function percentile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1))]!;
}

/** A sample's value from Prometheus text (`name value` or `name{labels} value`), in MiB; NaN when absent. */
function metricMib(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) / 2 ** 20 : Number.NaN;
}

async function sample(pid: number, url: string, at: string, t0: number): Promise<Sample> {
  const seconds = (performance.now() - t0) / 1000;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssMib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const metrics = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })
    .then((r) => r.text())
    .catch(() => '');
  return {
    at,
    seconds,
    rssMib,
    fds,
    heapMib: metricMib(metrics, 'nodejs_heap_size_total_bytes'),
    newSpaceMib: metricMib(metrics, 'nodejs_heap_space_size_total_bytes{space="new"}'),
    externalMib: metricMib(metrics, 'nodejs_external_memory_bytes'),
  };
}

async function startServer(o: SoakOptions): Promise<{ child: ChildProcess; url: string; port: number; exit: Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    [
      o.cli,
      'serve',
      '-m',
      o.model,
      '--port',
      '0',
      '-t',
      String(o.threads),
      '--max-queue',
      String(o.maxQueue),
      '--timeout-ms',
      String(REQUEST_TIMEOUT_MS),
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(o.serverNodeOptions === undefined ? {} : { env: { ...process.env, NODE_OPTIONS: o.serverNodeOptions } }),
    },
  );
  const { url, exit } = await readyUrl(child, 'jepa serve');
  return { child, url, port: Number(new URL(url).port), exit };
}

export async function runSoak(o: SoakOptions, log: (s: string) => void): Promise<SoakReport> {
  const server = await startServer(o);
  const { url, port } = server;
  const pid = server.child.pid!;
  const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string; frames: number; endpoints: string[] }[] };
  const card = models.data[0]!;
  const frames = card.frames ?? 4;
  const image = { image: b64(png(24, 1)) };
  const clip = { frames: b64(framesNpy(frames, 16, 2)) };
  const json = (x: unknown) => JSON.stringify(x);
  type Req = { route: string; path: string; body: string; bad?: boolean };
  const traffic: Req[] = [
    { route: 'embed image', path: '/v1/embeddings', body: json({ input: image }) },
    { route: 'embed clip', path: '/v1/embeddings', body: json({ input: clip }) },
    { route: 'embed batch', path: '/v1/embeddings', body: json({ input: [image, { image: b64(png(20, 3)) }, image] }) },
    { route: 'features', path: '/v1/features', body: json({ input: image }) },
    ...(card.endpoints.includes('/v1/classify') ? [{ route: 'classify', path: '/v1/classify', body: json({ input: image, top_k: 3 }) }] : []),
    ...(card.endpoints.includes('/v1/predict')
      ? [{ route: 'predict', path: '/v1/predict', body: json({ input: clip, context: '0:4', target: '4:8' }) }]
      : []),
    { route: 'bad: json', path: '/v1/embeddings', body: '{"input": [', bad: true },
    { route: 'bad: field', path: '/v1/embeddings', body: json({ input: image, colour: 'red' }), bad: true },
    { route: 'bad: base64', path: '/v1/embeddings', body: json({ input: { image: '!!!notbase64' } }), bad: true },
    { route: 'bad: image', path: '/v1/classify', body: json({ input: { image: b64(Buffer.from('not an image at all')) } }), bad: true },
    { route: 'bad: model', path: '/v1/embeddings', body: json({ model: 'nope', input: image }), bad: true },
  ];
  const lat = new Map<string, number[]>();
  const ok = new Map<string, number>();
  const count = new Map<string, number>();
  const statuses: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  const faults: Record<string, number> = {};
  const violations: string[] = [];
  const bump = (rec: Record<string, number>, k: string, n = 1) => {
    rec[k] = (rec[k] ?? 0) + n;
  };
  const judge = (route: string, status: number, body: string, bad: boolean) => {
    bump(statuses, String(status));
    if (status >= 400) {
      try {
        const code = (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? '(no code)';
        bump(errorCodes, `${status} ${code}`);
      } catch {
        bump(errorCodes, `${status} (not JSON)`);
      }
    }
    if (status >= 500 && status !== 503 && status !== 504) violations.push(`${route}: HTTP ${status} ${body.slice(0, 200)}`);
    if (!bad && status >= 400 && status !== 429 && status !== 503 && status !== 504)
      violations.push(`${route}: HTTP ${status} for a good request: ${body.slice(0, 200)}`);
    if (bad && (status < 400 || status >= 500)) violations.push(`${route}: HTTP ${status} for a bad request`);
  };
  // the clients' own keep-alive pool, closed before the end sample so that their idle sockets are not counted as the server's
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const post = (path: string, body: string, signal?: AbortSignal) =>
    new Promise<{ status: number; text: string }>((done, fail) => {
      const req = request(
        `${url}${path}`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          ...(signal ? { signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  const send = async (r: Req, signal?: AbortSignal) => {
    const t = performance.now();
    const res = await post(r.path, r.body, signal);
    const ms = performance.now() - t;
    count.set(r.route, (count.get(r.route) ?? 0) + 1);
    if (res.status === 200) {
      ok.set(r.route, (ok.get(r.route) ?? 0) + 1);
      const l = lat.get(r.route) ?? [];
      l.push(ms);
      lat.set(r.route, l);
    }
    judge(r.route, res.status, res.text, r.bad === true);
    return res.status;
  };

  const t0 = performance.now();
  const end = t0 + o.seconds * 1000;
  const running = () => performance.now() < end;
  // warm-up: every route once, so the start sample holds the graphs' buffers
  for (const r of traffic) await send(r);
  const samples: Sample[] = [await sample(pid, url, 'start', t0)];
  log(
    `soak: ${url}, ${card.id} (${card.endpoints.join(', ')}), ${o.seconds} s; start RSS ${samples[0]!.rssMib.toFixed(0)} MiB, ${samples[0]!.fds} fds`,
  );

  const health: number[] = [];
  let healthFailed = 0;
  const healthLoop = (async () => {
    while (running()) {
      const t = performance.now();
      try {
        const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
        await r.text();
        if (r.status !== 200) healthFailed++;
      } catch {
        healthFailed++;
      }
      health.push(performance.now() - t);
      await new Promise((d) => setTimeout(d, 100));
    }
  })();

  let seed = 1;
  const rnd = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const clients = Array.from({ length: o.clients }, async () => {
    while (running()) await send(traffic[Math.floor(rnd() * traffic.length)]!).catch(() => bump(faults, 'client error'));
  });

  // slowloris: headers a byte at a time, and a body that trickles; each socket is kept until the server closes it or the soak ends
  const slowSockets = new Set<Socket>();
  const slowHeld: number[] = [];
  const slowOpened = new Map<Socket, number>();
  const slowLoop = (async () => {
    let i = 0;
    while (running()) {
      while (slowSockets.size < o.slowClients && running()) {
        const bodyToo = i++ % 2 === 1;
        const s = connect(port, '127.0.0.1');
        s.on('error', () => {});
        slowSockets.add(s);
        bump(faults, bodyToo ? 'slowloris body' : 'slowloris headers');
        const head = bodyToo
          ? `POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"input":`
          : 'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nX-Slow: ';
        s.write(head);
        const drip = setInterval(() => (s.writable ? s.write('a') : clearInterval(drip)), 1000);
        const opened = performance.now();
        slowOpened.set(s, opened);
        s.on('close', () => {
          clearInterval(drip);
          if (!slowSockets.delete(s)) return; // closed by this bench at the end
          bump(faults, 'slowloris closed by the server');
          slowHeld.push(performance.now() - opened);
        });
      }
      await new Promise((d) => setTimeout(d, 250));
    }
  })();

  // disconnects: mid-request (half a body, then gone) and mid-response (gone at the first bytes of the answer)
  const dropLoop = (async () => {
    while (running()) {
      const body = traffic[1]!.body;
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.write(
        `POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length >> 1)}`,
      );
      await new Promise((d) => setTimeout(d, 20));
      s.destroy();
      bump(faults, 'disconnect mid-request');
      const c = new AbortController();
      const answered = send(traffic[3]!, c.signal).catch(() => bump(faults, 'disconnect mid-response'));
      await new Promise((d) => setTimeout(d, 5 + Math.floor(rnd() * 40)));
      c.abort();
      await answered;
      await new Promise((d) => setTimeout(d, 200));
    }
  })();

  // bursts at 10x the queue, every 5 s
  const burstLoop = (async () => {
    while (running()) {
      await new Promise((d) => setTimeout(d, 5000));
      if (!running()) break;
      bump(faults, 'burst');
      const burst = Array.from({ length: 10 * o.maxQueue }, () => send(traffic[0]!).catch(() => bump(faults, 'client error')));
      const got = await Promise.all(burst);
      bump(faults, 'burst refused (429/503)', got.filter((s) => s === 429 || s === 503).length);
    }
  })();

  // `warm`: a quarter in, when V8's young generation and the allocators have sized themselves to the load
  const timed = (['warm', 'middle'] as const).map((at, i) =>
    setTimeout(() => void sample(pid, url, at, t0).then((s) => samples.push(s)), ((i + 1) * o.seconds * 1000) / 4),
  );
  await Promise.all([healthLoop, slowLoop, dropLoop, burstLoop, ...clients]);
  for (const t of timed) clearTimeout(t);
  const slowOpenAtEnd = slowSockets.size;
  const outlived = [...slowSockets].filter((s) => performance.now() - slowOpened.get(s)! > o.slowCloseS * 1000).length;
  if (outlived > 0)
    violations.push(
      `${outlived} slowloris sockets were still open after ${o.slowCloseS} s (the server's request timeout is ${REQUEST_TIMEOUT_MS / 1000} s)`,
    );
  for (const s of [...slowSockets]) {
    slowSockets.delete(s);
    s.destroy();
  }
  agent.destroy();
  await new Promise((d) => setTimeout(d, 500));
  samples.push(await sample(pid, url, 'end', t0));
  samples.sort((a, b) => a.seconds - b.seconds);

  // SIGTERM with work in flight: every request already sent is answered (200, or 503 once draining)
  const inFlight = Array.from({ length: Math.min(o.maxQueue, 16) }, (_, i) => traffic[i % 2]!);
  const answered: Record<string, number> = {};
  const pending = inFlight.map((r) =>
    post(r.path, r.body)
      .then((res) => bump(answered, String(res.status)))
      .catch(() => bump(answered, 'connection error')),
  );
  await new Promise((d) => setTimeout(d, 30));
  const k0 = performance.now();
  server.child.kill('SIGTERM');
  await Promise.all(pending);
  const exitCode = await server.exit;
  const shutdown = { inFlight: inFlight.length, answered, exitCode, ms: performance.now() - k0 };
  if (exitCode !== 0) violations.push(`the server exited ${exitCode} after SIGTERM`);
  if (answered['connection error']) violations.push(`${answered['connection error']} requests in flight at SIGTERM got no answer`);

  const routes: SoakReport['routes'] = {};
  for (const [route, n] of count) {
    const l = lat.get(route) ?? [];
    routes[route] = { requests: n, ok: ok.get(route) ?? 0, p50Ms: percentile(l, 50), p99Ms: percentile(l, 99) };
  }
  const healthStats = {
    polls: health.length,
    p50Ms: percentile(health, 50),
    p99Ms: percentile(health, 99),
    maxMs: Math.max(...health),
    failed: healthFailed,
  };
  const [first, last] = [samples[0]!, samples.at(-1)!];
  const warm = samples.find((x) => x.at === 'warm') ?? first;
  if (healthStats.p99Ms > o.healthP99Ms) violations.push(`/health p99 ${healthStats.p99Ms.toFixed(0)} ms, past ${o.healthP99Ms} ms`);
  if (healthFailed > 0) violations.push(`${healthFailed} /health polls failed`);
  if (last.rssMib - warm.rssMib > o.rssGrowthMib)
    violations.push(`RSS grew ${(last.rssMib - warm.rssMib).toFixed(0)} MiB from the warm sample to the end, past ${o.rssGrowthMib} MiB`);
  if (last.fds - first.fds > o.fdGrowth) violations.push(`open fds grew by ${last.fds - first.fds}, past ${o.fdGrowth}`);
  const { cli: _cli, ...options } = o;
  return {
    options,
    seconds: (performance.now() - t0) / 1000,
    served: [...count.values()].reduce((a, b) => a + b, 0),
    routes,
    health: healthStats,
    statuses,
    errorCodes,
    faults,
    slowloris: {
      closedByServer: slowHeld.length,
      heldP50Ms: percentile(slowHeld, 50),
      heldMaxMs: slowHeld.length ? Math.max(...slowHeld) : 0,
      openAtEnd: slowOpenAtEnd,
    },
    samples,
    shutdown,
    violations,
  };
}

export function soakMarkdown(r: SoakReport): string {
  const lines = [
    `${r.served} requests in ${r.seconds.toFixed(0)} s (${r.options.clients} clients, --max-queue ${r.options.maxQueue}, ${r.options.slowClients} slow sockets held)`,
    '',
    '| route | requests | 200 | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(r.routes).map(([k, v]) => `| ${k} | ${v.requests} | ${v.ok} | ${v.p50Ms.toFixed(1)} | ${v.p99Ms.toFixed(1)} |`),
    `| /health | ${r.health.polls} | ${r.health.polls - r.health.failed} | ${r.health.p50Ms.toFixed(1)} | ${r.health.p99Ms.toFixed(1)} |`,
    '',
    '| sample | s | RSS MiB | V8 heap MiB | of which young | external MiB | fds |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.samples.map(
      (s) =>
        `| ${s.at} | ${s.seconds.toFixed(0)} | ${s.rssMib.toFixed(0)} | ${s.heapMib.toFixed(0)} | ${s.newSpaceMib.toFixed(0)} | ${s.externalMib.toFixed(0)} | ${s.fds} |`,
    ),
    '',
    `statuses: ${JSON.stringify(r.statuses)}`,
    `error codes: ${JSON.stringify(r.errorCodes)}`,
    `faults: ${JSON.stringify(r.faults)}`,
    `slowloris sockets closed by the server: ${r.slowloris.closedByServer}, after ${(r.slowloris.heldP50Ms / 1000).toFixed(1)} s (median), ${(r.slowloris.heldMaxMs / 1000).toFixed(1)} s (max); ${r.slowloris.openAtEnd} open at the end`,
    `SIGTERM with ${r.shutdown.inFlight} requests in flight: answers ${JSON.stringify(r.shutdown.answered)}, exit ${r.shutdown.exitCode} after ${r.shutdown.ms.toFixed(0)} ms`,
    r.violations.length === 0 ? 'no violations' : `VIOLATIONS:\n${r.violations.map((v) => `- ${v}`).join('\n')}`,
  ];
  return lines.join('\n');
}
