// A queue run whose shard folder fills up: the workers' --out is a 256 KiB tmpfs (mounted by this
// test; it runs as root, as CI does) filled to the last block. The job fails with ENOSPC and is
// retried with backoff, the worker stays up and leaves no partial shard behind; once space is freed
// the retry writes the shard and `queue collect` gives the bytes `jepa embed` gives. A real
// redis-server and real CLI children; nothing is mocked.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { cliMain, pngOf, RedisServer } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = cliMain();
const env = { ...process.env, JEPA_DEVICE: 'cpu' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const live = new Set<ChildProcess>();

function jepa(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, out, err });
    }),
  );
}

/** Writes `path` until the file system says ENOSPC; returns how many bytes went in. */
function fillUp(path: string): number {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 7);
  let n = 0;
  try {
    for (;;) n += writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return n;
}

describe('jepa worker when the shard folder fills up (ENOSPC)', () => {
  let tmp: string;
  let mount: string;
  let redis: RedisServer;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'jepa-enospc-'));
    mount = join(tmp, 'shards');
    mkdirSync(mount);
    // a test whose prerequisite is missing fails: mounting needs root (CAP_SYS_ADMIN)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
    redis = await RedisServer.start();
  }, 120_000);

  afterAll(async () => {
    for (const c of live) c.kill('SIGKILL');
    await redis?.stop();
    try {
      execFileSync('umount', [mount]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the job fails with ENOSPC and is retried, no partial shard is left, and after space is freed collect equals jepa embed', async () => {
    const model = forgeModel('ijepa', { path: join(tmp, 'ijepa-tiny.gguf') }).path;
    const images = Array.from({ length: 12 }, (_, i) => {
      const p = join(tmp, `img-${String(i).padStart(2, '0')}.png`);
      writeFileSync(
        p,
        pngOf(16, 16, (x, y) => (i * 37 + x * 11 + y * (5 + i)) & 255),
      );
      return p;
    });
    const list = join(tmp, 'list.txt');
    writeFileSync(list, `${images.join('\n')}\n`);
    const queue = 'enospc';
    const added = await jepa(['queue', 'add', queue, `@${list}`, '--redis', redis.url, '--batch', '12', '--attempts', '5', '--backoff', '1500']);
    expect(added.code, added.err).toBe(0);

    const filler = join(mount, 'filler');
    expect(fillUp(filler)).toBeGreaterThan(200_000);
    const worker = spawn(process.execPath, [main, 'worker', queue, '-m', model, '--out', mount, '--redis', redis.url, '-t', '1', '--batch', '12'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    live.add(worker);
    let err = '';
    worker.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const deadline = Date.now() + 120_000;
    while (!/batch-000000: .*ENOSPC.*\(attempt 1\)/.test(err)) {
      if (worker.exitCode !== null) throw new Error(`the worker exited (${worker.exitCode}):\n${err}`);
      if (Date.now() > deadline) throw new Error(`no ENOSPC failure within 120 s:\n${err}`);
      await sleep(50);
    }
    // the failed write took nothing with it: the shard folder holds only the filler (and no temp file)
    const shards = join(mount, queue);
    expect(existsSync(shards) ? readdirSync(shards) : []).toEqual([]);
    expect(worker.exitCode).toBeNull();

    unlinkSync(filler);
    const done = Date.now() + 120_000;
    while (!/^jepa: batch-000000: 12 embedded/m.test(err)) {
      if (worker.exitCode !== null) throw new Error(`the worker exited (${worker.exitCode}):\n${err}`);
      if (Date.now() > done) throw new Error(`the retry did not complete within 120 s:\n${err}`);
      await sleep(100);
    }
    worker.kill('SIGTERM');

    const out = join(tmp, 'out.npy');
    const c = await jepa(['queue', 'collect', queue, '-o', out, '--redis', redis.url]);
    expect(c.code, c.err).toBe(0);
    const reference = join(tmp, 'reference.npy');
    const r = await jepa(['embed', '-m', model, `@${list}`, '-o', reference, '--batch', '12', '-t', '1']);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(out).equals(readFileSync(reference))).toBe(true);
  }, 300_000);
});
