// A query by words to a process that holds the model and the index: one `jepa search --texts -` fed a
// line at a time on its standard input (from writing the line to reading its last hit), and POST
// /v1/search {text, k} to a `jepa serve --index` (from sending to the whole answer read). Each query's
// hits are checked to be that query's, so a time is never taken on the wrong answer.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { serve } from './serve-child.js';

export interface HeldOptions {
  cli: string;
  model: string;
  dir: string;
  queries: readonly string[];
  runs: number;
  warmup: number;
  threads: number;
  k: number;
  /** Hits each query gets: k, or the rows when fewer. */
  hits: number;
}

const elapsedMs = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Query i of the warmup, then of the timed runs, the list cycled. The warmup's are words of their own, so
 * that no timed query is one the server's text-vector cache has seen unless the runs outnumber the list.
 */
const queryAt = (o: HeldOptions, i: number) => (i < o.warmup ? `warm-up query number ${i + 1}` : o.queries[(i - o.warmup) % o.queries.length]!);

/** Per timed query, ms from writing its line to `jepa search --texts - --json` to reading its last hit line. */
export async function stdinSessionTimes(o: HeldOptions): Promise<number[]> {
  const child = spawn(process.execPath, [o.cli, 'search', '--db', o.dir, '--texts', '-', '-k', String(o.k), '-t', String(o.threads), '--json'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const died = exit.then((code) => {
    throw new Error(`jepa search --texts - exited (${code}) mid-run: ${stderr.trim()}`);
  });
  died.catch(() => {});
  let waiting: { text: string; left: number; done: () => void; fail: (e: Error) => void } | null = null;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting;
    if (w === null) return;
    const query = (JSON.parse(line) as { query?: string }).query;
    if (query !== w.text) return w.fail(new Error(`a hit of ${JSON.stringify(query)} while ${JSON.stringify(w.text)} was asked`));
    if (--w.left === 0) {
      waiting = null;
      w.done();
    }
  });
  const ask = (text: string) =>
    Promise.race([
      died,
      new Promise<number>((done, fail) => {
        const t0 = process.hrtime.bigint();
        waiting = { text, left: o.hits, done: () => done(elapsedMs(t0)), fail };
        child.stdin.write(`${text}\n`);
      }),
    ]);
  const times: number[] = [];
  try {
    for (let i = 0; i < o.warmup + o.runs; i++) {
      const ms = await ask(queryAt(o, i));
      if (i >= o.warmup) times.push(ms);
    }
  } finally {
    child.stdin.end();
  }
  const code = await exit;
  if (code !== 0) throw new Error(`jepa search --texts - exited (${code}): ${stderr.trim()}`);
  return times;
}

/** Per timed query, ms of POST /v1/search {text, k} to `jepa serve -m MODEL --index DIR`, the answer read whole. */
export async function serveTimes(o: HeldOptions, log: (s: string) => void): Promise<number[]> {
  const server = await serve({ label: 'A', path: o.cli }, ['-m', o.model, '--index', o.dir, '-t', String(o.threads)], log);
  const times: number[] = [];
  try {
    for (let i = 0; i < o.warmup + o.runs; i++) {
      const t0 = process.hrtime.bigint();
      const r = await fetch(`${server.url}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: queryAt(o, i), k: o.k }),
      });
      const body = (await r.json()) as { data?: unknown[] };
      const ms = elapsedMs(t0);
      if (r.status !== 200 || body.data?.length !== o.hits) throw new Error(`POST /v1/search: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (i >= o.warmup) times.push(ms);
    }
  } finally {
    await server.stop();
  }
  return times;
}
