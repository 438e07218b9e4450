// jepa queue and jepa worker as they run for real: CLI child processes, a real redis-server (the
// AOF fixture), workers SIGKILLed and SIGTERMed mid-job, Redis killed and restarted under them. No
// mocks. The distributed result is held to the single-process one: `queue collect -o` must write
// the same bytes (and the same index) as `jepa embed` of the same inputs with the same --batch at -t 1.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { readNpy, rgbPngHeader } from '@jepa/preprocess';
import { cliMain, freePort, pngOf, RedisServer } from '@jepa/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const main = cliMain();
const env = { ...process.env, JEPA_DEVICE: 'cpu' };
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const TEST_TIMEOUT = 300_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let tmp: string;
/** Every child this file started and has not seen exit: killed after each test. */
const live = new Set<ChildProcess>();

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** A CLI child; where setpriv exists the kernel SIGKILLs it if this test process dies. */
function start(args: string[]): ChildProcess {
  const [cmd, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', process.execPath, main, ...args]] : [process.execPath, [main, ...args]];
  const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Runs `jepa ARGS` to the end (killed after `timeoutMs`: then code is null). */
function jepa(args: string[], timeoutMs = 120_000): Promise<Ran> {
  const child = start(args);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, out, err });
    }),
  );
}

/** A `jepa worker` in the background, its stderr kept. */
class Worker {
  readonly child: ChildProcess;
  err = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    args: string[],
  ) {
    this.child = start(['worker', ...args]);
    this.child.stderr!.on('data', (c: Buffer) => (this.err += c.toString('utf8')));
    this.exited = new Promise((done) => this.child.once('close', (code, signal) => done({ code, signal })));
  }

  /** The job ids this worker reported completed, in order. */
  get completed(): string[] {
    return [...this.err.matchAll(/^jepa: (batch-\d+): \d+ embedded/gm)].map((m) => m[1]!);
  }

  async waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.err)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${this.name} exited before ${pattern}:\n${this.err}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.err}`);
      await sleep(20);
    }
  }
}

function startWorkers(n: number, queue: string, redis: RedisServer, model: string, out: string, extra: string[] = []): Worker[] {
  return Array.from(
    { length: n },
    (_, i) => new Worker(`worker ${i}`, [queue, '-m', model, '--out', out, '--redis', redis.url, '-t', '1', '--batch', '8', ...extra]),
  );
}

interface Status {
  waiting: number;
  active: number;
  completed: number;
  failed: number;
  delayed: number;
  jobs: number;
  inputs: number;
}

async function status(redis: RedisServer, queue: string): Promise<Status> {
  const r = await jepa(['queue', 'status', queue, '--json', '--redis', redis.url], 30_000);
  if (r.code !== 0) throw new Error(`queue status ${queue}: exit ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as Status;
}

/** Polls `queue status --json` until every job has completed or failed (and none is left to run). */
async function waitFinished(redis: RedisServer, queue: string, workers: Worker[] = [], timeoutMs = 240_000): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let s: Status | undefined;
    try {
      s = await status(redis, queue);
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (s && s.waiting + s.active + s.delayed === 0 && s.completed + s.failed === s.jobs) return s;
    if (Date.now() > deadline)
      throw new Error(
        `queue ${queue} did not finish within ${timeoutMs} ms: ${JSON.stringify(s)}\n${workers.map((w) => `${w.name}:\n${w.err}`).join('\n')}`,
      );
    await sleep(500);
  }
}

/** One command as a RESP array on a fresh connection; resolves with the raw reply ('' if the server closed without one). */
function resp(port: number, ...args: string[]): Promise<string> {
  const req = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((done, fail) => {
    let buf = '';
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no reply to ${args[0]}`)));
    socket.once('error', fail);
    socket.once('close', () => done(buf));
    socket.once('connect', () => socket.write(req));
    socket.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const nl = buf.indexOf('\r\n');
      if (nl < 0) return;
      const complete = buf[0] === '$' && !buf.startsWith('$-1') ? buf.length >= nl + 2 + Number(buf.slice(1, nl)) + 2 : true;
      if (complete) socket.end();
    });
  });
}

/** How often BullMQ found job `id` stalled (its `stc` field: the lock lapsed while it was active). */
async function stalledCount(redis: RedisServer, queue: string, id: string): Promise<number> {
  const reply = await resp(redis.port, 'HGET', `bull:${queue}:${id}`, 'stc');
  const m = /^\$\d+\r\n(\d+)\r\n/.exec(reply);
  return m ? Number(m[1]) : 0;
}

const jobId = (n: number) => `batch-${String(n).padStart(6, '0')}`;

/** A 16x16 RGB PNG whose pixels depend on i: 200 of them are 200 different images. */
function png(i: number): Buffer {
  return pngOf(16, 16, (x, y) => (i * 37 + x * (11 + (i % 7)) + y * (5 + (i % 13)) + ((i * x * y) % 17)) & 255);
}

function writeImages(dir: string, count: number): string[] {
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const path = join(dir, `img-${String(i).padStart(3, '0')}.png`);
    writeFileSync(path, png(i));
    return path;
  });
}

function listFile(path: string, inputs: string[]): string {
  writeFileSync(path, `${inputs.join('\n')}\n`);
  return `@${path}`;
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The collected output is the reference's bytes, its index the reference's, each input once in order. */
function expectSameAsReference(out: string, reference: string, inputs: string[]): void {
  expect(readFileSync(out).equals(readFileSync(reference)), `${out} differs from ${reference}`).toBe(true);
  expect(readFileSync(`${out}.index.jsonl`, 'utf8')).toBe(readFileSync(`${reference}.index.jsonl`, 'utf8'));
  const index = lines(`${out}.index.jsonl`);
  expect(index.map((e) => e.input)).toEqual(inputs);
  expect(index.map((e) => e.row)).toEqual(inputs.map((_, i) => i));
  const npy = readNpy(out);
  expect(npy.shape[0]).toBe(inputs.length);
  // distinct images give distinct rows: a shard collected twice or in the wrong place would show
  const dim = npy.shape[1]!;
  const data = npy.data as Float32Array;
  const rows = new Set(
    Array.from({ length: inputs.length }, (_, i) => Buffer.from(data.buffer, data.byteOffset + i * dim * 4, dim * 4).toString('hex')),
  );
  expect(rows.size).toBe(inputs.length);
}

/** `queue add`, asserting it worked. */
async function add(redis: RedisServer, queue: string, inputs: string, ...flags: string[]): Promise<void> {
  const r = await jepa(['queue', 'add', queue, inputs, '--redis', redis.url, ...flags]);
  expect(r.code, r.err).toBe(0);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'jepa-queue-'));
});

afterEach(async () => {
  const running = [...live];
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(running.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once('exit', r)))));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('jepa worker and jepa queue: long jobs (a 1024-token model, 8 images a job)', () => {
  // I-JEPA at 128x128 (1024 patches), D 128, 6 layers: a job of 8 takes around a second at -t 1, so
  // a worker killed after its first job is killed inside its next one.
  let model: string;
  let inputs: string[];
  let list: string;
  let reference: string;
  let redis: RedisServer;

  beforeAll(async () => {
    model = forgeModel('ijepa', {
      path: join(tmp, 'ijepa-128.gguf'),
      edit: (h) => ({
        ...h,
        enc: { ...h.enc, imgSize: 128, embedDim: 128, nHead: 8, headDim: 16, ffnDim: 512, nLayer: 6, gridSize: 32, nPatches: 1024 },
        pre: { ...h.pre, resize: { mode: 'squash', size: 128 }, crop: 128 },
      }),
    }).path;
    inputs = writeImages(join(tmp, 'images'), 200);
    list = listFile(join(tmp, 'images.txt'), inputs);
    reference = join(tmp, 'reference.npy');
    const r = await jepa(['embed', '-m', model, list, '-o', reference, '--batch', '8', '-t', '1'], 240_000);
    expect(r.code, r.err).toBe(0);
    expect(readNpy(reference).shape).toEqual([200, 128]);
    redis = await RedisServer.start();
  }, TEST_TIMEOUT);

  afterAll(async () => {
    await redis?.stop();
  });

  it(
    'a worker SIGKILLed mid-job: its job is handed on, and collect equals jepa embed byte for byte',
    async () => {
      const queue = 'killed';
      const out = join(tmp, 'shards-killed');
      await add(redis, queue, list, '--batch', '8');
      const workers = startWorkers(3, queue, redis, model, out, ['--lock-duration', '2000', '--stalled-interval', '1000', '--max-stalled', '3']);
      const victim = workers[0]!;
      await victim.waitFor(/^jepa: batch-\d+: 8 embedded/m);
      await sleep(300); // into its next job
      const before = await status(redis, queue);
      expect(before.active).toBeGreaterThan(0);
      expect(before.waiting).toBeGreaterThan(0);
      victim.child.kill('SIGKILL');
      expect((await victim.exited).signal).toBe('SIGKILL');

      const done = await waitFinished(redis, queue, workers);
      expect(done).toMatchObject({ completed: 25, failed: 0, jobs: 25, inputs: 200 });
      // the victim's job stalled (its lock lapsed) and another worker took it
      const stalls = await Promise.all(Array.from({ length: 25 }, (_, n) => stalledCount(redis, queue, jobId(n))));
      expect(stalls.filter((s) => s > 0).length, `stalled counts ${stalls}`).toBeGreaterThanOrEqual(1);
      const survivors = workers.slice(1).flatMap((w) => w.completed);
      const completedByVictim = victim.completed;
      expect(new Set([...survivors, ...completedByVictim]).size).toBe(25);

      const collected = join(tmp, 'killed.npy');
      const c = await jepa(['queue', 'collect', queue, '-o', collected, '--redis', redis.url]);
      expect(c.code, c.err).toBe(0);
      expect(c.err).toMatch(/200 of 200 inputs collected/);
      expectSameAsReference(collected, reference, inputs);
    },
    TEST_TIMEOUT,
  );

  it(
    'a worker that gets SIGTERM mid-job finishes that job, writes its shard and exits 0',
    async () => {
      // jobs of 24 (three encoder calls of 8): a few seconds each, so the signal lands inside one
      const queue = 'sigterm';
      const out = join(tmp, 'shards-sigterm');
      await add(redis, queue, listFile(join(tmp, 'sigterm.txt'), inputs.slice(0, 72)), '--batch', '24');
      const [worker] = startWorkers(1, queue, redis, model, out, ['--lock-duration', '2000', '--stalled-interval', '1000']);
      await worker!.waitFor(/^jepa: batch-\d+: 24 embedded/m);
      await sleep(300); // into its second job
      // straight from Redis (milliseconds, where a `queue status` process takes a while to start): batch-000001 is active
      expect(await resp(redis.port, 'LPOS', `bull:${queue}:active`, jobId(1))).toBe(':0\r\n');
      worker!.child.kill('SIGTERM');
      const during = await status(redis, queue);
      expect(during.completed + during.active).toBe(2);
      const exit = await worker!.exited;
      expect(exit, worker!.err).toEqual({ code: 0, signal: null });
      const err = worker!.err;
      expect(err).toMatch(/^jepa: SIGTERM: finishing the current job, then stopping$/m);
      expect(err).toMatch(/jepa: worker stopped\n$/);
      // exactly the job it was in when the signal came, completed after it
      const afterSignal = err.slice(err.indexOf('SIGTERM:'));
      const finishing = [...afterSignal.matchAll(/^jepa: (batch-\d+): 24 embedded/gm)].map((m) => m[1]!);
      expect(finishing).toEqual([jobId(1)]);
      expect(worker!.completed).toEqual([jobId(0), jobId(1)]);
      expect(existsSync(join(out, queue, `${jobId(1)}.json`))).toBe(true);
      expect(existsSync(join(out, queue, `${jobId(1)}.f32`))).toBe(true);
      expect(await status(redis, queue)).toMatchObject({ active: 0, completed: 2, waiting: 1, failed: 0 });
      expect(await stalledCount(redis, queue, jobId(1))).toBe(0);

      // another worker takes the rest; the queue collects whole
      const [next] = startWorkers(1, queue, redis, model, out);
      await waitFinished(redis, queue, [next!]);
      expect(next!.completed).toEqual([jobId(2)]);
      const c = await jepa(['queue', 'collect', queue, '-o', join(tmp, 'sigterm.npy'), '--redis', redis.url]);
      expect(c.code, c.err).toBe(0);
      expect(readNpy(join(tmp, 'sigterm.npy')).shape).toEqual([72, 128]);
    },
    TEST_TIMEOUT,
  );

  it(
    'Redis SIGKILLed and restarted, then shut down and restarted, under running workers: the job completes, collect equals jepa embed',
    async () => {
      const own = await RedisServer.start();
      try {
        const queue = 'restarted';
        const out = join(tmp, 'shards-restarted');
        await add(own, queue, list, '--batch', '8');
        const workers = startWorkers(2, queue, own, model, out, ['--lock-duration', '5000', '--stalled-interval', '2000', '--max-stalled', '5']);
        await workers[0]!.waitFor(/^jepa: batch-\d+: 8 embedded/m);

        // a crash: SIGKILL (the AOF, fsynced always, keeps what was acknowledged), back after a second
        await own.kill();
        await sleep(1000);
        await own.restart();
        const crashed = await status(own, queue);
        expect(crashed.jobs).toBe(25);
        expect(crashed.completed).toBeLessThan(25);
        const atCrash = crashed.completed;
        const deadline = Date.now() + 120_000;
        while ((await status(own, queue)).completed < atCrash + 3) {
          if (Date.now() > deadline) throw new Error(`no progress after the restart:\n${workers.map((w) => w.err).join('\n')}`);
          await sleep(300);
        }

        // a graceful stop: SHUTDOWN (it writes the AOF and exits), back after a second
        expect((await status(own, queue)).completed).toBeLessThan(25);
        await resp(own.port, 'SHUTDOWN');
        for (let i = 0; own.running && i < 200; i++) await sleep(50);
        expect(own.running).toBe(false);
        await sleep(1000);
        await own.restart();

        const done = await waitFinished(own, queue, workers);
        expect(done).toMatchObject({ completed: 25, failed: 0, jobs: 25, inputs: 200 });
        for (const w of workers) expect(w.child.exitCode, w.err).toBeNull();
        expect(workers.map((w) => w.err).join('')).toMatch(/jepa: (redis|worker): .*(ECONNREFUSED|Connection is closed|ECONNRESET)/);

        const collected = join(tmp, 'restarted.npy');
        const c = await jepa(['queue', 'collect', queue, '-o', collected, '--redis', own.url]);
        expect(c.code, c.err).toBe(0);
        expectSameAsReference(collected, reference, inputs);
      } finally {
        await own.stop();
      }
    },
    TEST_TIMEOUT,
  );
});

describe('jepa worker and jepa queue: failures (the tiny model)', () => {
  let model: string;
  let redis: RedisServer;
  let images: string[];

  beforeAll(async () => {
    model = forgeModel('ijepa', { path: join(tmp, 'ijepa-tiny.gguf') }).path;
    images = writeImages(join(tmp, 'tiny-images'), 24);
    redis = await RedisServer.start();
  }, TEST_TIMEOUT);

  afterAll(async () => {
    await redis?.stop();
  });

  it(
    'a corrupt image in the middle of a batch fails alone: collect exits 3 naming it, every other input is there',
    async () => {
      const dir = join(tmp, 'poison');
      mkdirSync(dir, { recursive: true });
      const bad = join(dir, 'bad.png');
      writeFileSync(bad, Buffer.concat([rgbPngHeader(16, 16), Buffer.from('not the rest of a png')]));
      const inputs = [...images.slice(0, 11), bad, ...images.slice(11, 20)]; // bad is 4th of the 2nd job of 8
      const list = listFile(join(dir, 'list.txt'), inputs);
      const queue = 'poison';
      await add(redis, queue, list, '--batch', '8');
      const workers = startWorkers(1, queue, redis, model, join(dir, 'shards'));
      const done = await waitFinished(redis, queue, workers);
      expect(done).toMatchObject({ completed: 3, failed: 0, jobs: 3, inputs: 21 });
      expect(workers[0]!.err).toMatch(/^jepa: batch-000001: 7 embedded, 1 failed/m);

      const out = join(dir, 'out.npy');
      const c = await jepa(['queue', 'collect', queue, '-o', out, '--redis', redis.url]);
      expect(c.code, c.err).toBe(3);
      const index = lines(`${out}.index.jsonl`);
      expect(index.map((e) => e.input)).toEqual(inputs);
      const failure = index[11]!;
      expect(failure.row).toBeUndefined();
      expect(typeof failure.error).toBe('string');
      expect((failure.error as string).length).toBeGreaterThan(0);
      expect(c.err).toContain(`jepa: ${bad}: ${failure.error as string}\n`);
      expect(c.err).toMatch(/20 of 21 inputs collected/);
      expect(c.err).toMatch(/1 of 21 inputs failed/);
      expect(index.filter((e) => e !== failure).map((e) => e.row)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(index.filter((e) => e !== failure).every((e) => e.error === undefined)).toBe(true);
      expect(readNpy(out).shape[0]).toBe(20);

      // and it is what jepa embed makes of the same inputs
      const reference = join(dir, 'reference.npy');
      const r = await jepa(['embed', '-m', model, list, '-o', reference, '--batch', '8', '-t', '1']);
      expect(r.code, r.err).toBe(3);
      expect(readFileSync(out).equals(readFileSync(reference))).toBe(true);
      expect(readFileSync(`${out}.index.jsonl`, 'utf8')).toBe(readFileSync(`${reference}.index.jsonl`, 'utf8'));
    },
    TEST_TIMEOUT,
  );

  it(
    'a job that fails as a whole (the shard folder cannot be made) is retried with backoff, then fails with its reason; collect reports its inputs',
    async () => {
      const dir = join(tmp, 'jobfail');
      mkdirSync(dir, { recursive: true });
      const notAFolder = join(dir, 'shards');
      writeFileSync(notAFolder, 'a file where the folder should be');
      const inputs = images.slice(0, 4);
      const queue = 'jobfail';
      await add(redis, queue, listFile(join(dir, 'list.txt'), inputs), '--batch', '8', '--attempts', '2', '--backoff', '100');
      // --out a file is refused at start; a folder under a file gets past that, and every job fails
      const workers = startWorkers(1, queue, redis, model, join(notAFolder, 'under'));
      const done = await waitFinished(redis, queue, workers);
      expect(done).toMatchObject({ completed: 0, failed: 1, jobs: 1, inputs: 4 });
      const err = workers[0]!.err;
      expect(err).toMatch(/^jepa: batch-000000: .*ENOTDIR.* \(attempt 1\)$/m);
      expect(err).toMatch(/^jepa: batch-000000: .*ENOTDIR.* \(attempt 2\)$/m);
      expect(err).not.toMatch(/\(attempt 3\)/);
      expect(workers[0]!.child.exitCode).toBeNull(); // a failed job does not stop the worker

      const out = join(dir, 'out.jsonl');
      const c = await jepa(['queue', 'collect', queue, '-o', out, '--redis', redis.url]);
      expect(c.code, c.err).toBe(3);
      for (const input of inputs)
        expect(c.err).toMatch(
          new RegExp(`^jepa: ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its job batch-000000 failed after 2 attempts: .*ENOTDIR`, 'm'),
        );
      expect(c.err).toMatch(/0 of 4 inputs collected/);
      expect(c.err).toMatch(/4 of 4 inputs failed/);
      const index = lines(`${out}.index.jsonl`);
      expect(index.map((e) => e.input)).toEqual(inputs);
      for (const e of index) expect(e.error).toMatch(/failed after 2 attempts: .*ENOTDIR/);
    },
    TEST_TIMEOUT,
  );

  it('an unknown queue is one line, exit 2', async () => {
    const r = await jepa(['queue', 'status', 'NOPE', '--redis', redis.url]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: there is no queue named NOPE in this Redis[^\n]*\n$/);
    const j = await jepa(['queue', 'status', 'NOPE', '--json', '--redis', redis.url]);
    expect(j.code).toBe(2);
    expect(j.out).toBe('');
  });

  it('no Redis at the address: "cannot reach Redis at …", one line, exit 2, without hanging', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const r = await jepa(['queue', 'add', 'nowhere', images[0]!, '--redis', url], 30_000);
    expect(r.signal).toBeNull(); // it gave up by itself
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^jepa: cannot reach Redis at ${url}[^\\n]*\\n$`));
  });

  it('adding a queue name twice is refused; collecting while jobs wait is refused with the counts', async () => {
    const queue = 'twice';
    const list = listFile(join(tmp, 'twice.txt'), images.slice(0, 12));
    await add(redis, queue, list, '--batch', '4');
    const again = await jepa(['queue', 'add', queue, list, '--redis', redis.url]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/^jepa: the queue twice already holds 12 inputs[^\n]*\n$/);
    expect(await status(redis, queue)).toMatchObject({ waiting: 3, jobs: 3, inputs: 12 });

    const out = join(tmp, 'twice.npy');
    const c = await jepa(['queue', 'collect', queue, '-o', out, '--redis', redis.url]);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/^jepa: the queue twice is not finished: 3 waiting[^\n]*\n$/);
    expect(existsSync(out)).toBe(false);

    const removed = await jepa(['queue', 'remove', queue, '--redis', redis.url]);
    expect(removed.code, removed.err).toBe(0);
    expect((await jepa(['queue', 'status', queue, '--redis', redis.url])).code).toBe(2);
  });
});
