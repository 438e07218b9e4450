// jepa queue collect NAME --index DIR: a real redis-server, a real worker, and the index it fills held
// to the one `jepa index add` builds from the same files; a second collect adds nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { VectorIndex } from '@jepa/search';
import { cliMain, RedisServer, runCli, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = cliMain();
const work = mkdtempSync(join(tmpdir(), 'jepa-queue-index-'));
let redis: RedisServer;
let worker: ChildProcess | undefined;
let model = '';
const images: string[] = [];

const jepa = (...args: string[]) => runCli(args, { env: { JEPA_DEVICE: 'cpu', JEPA_REDIS_URL: redis.url }, timeout: 120_000 });

beforeAll(async () => {
  redis = await RedisServer.start();
  mkdirSync(join(work, 'photos'));
  for (let i = 0; i < 10; i++) {
    const p = join(work, 'photos', `q${i}.png`);
    writeFileSync(p, seededPng(18, 16, 300 + i));
    images.push(p);
  }
  model = forgeModel('hfvit', { seed: 7, path: join(work, 'vit.gguf') }).path;
}, 60_000);

afterAll(async () => {
  worker?.kill('SIGKILL');
  await redis?.stop();
  rmSync(work, { recursive: true, force: true });
});

function rows(dir: string) {
  const index = VectorIndex.open(dir);
  try {
    return [...index.rows()].sort((a, b) => a.path.localeCompare(b.path));
  } finally {
    index.close();
  }
}

describe('jepa queue collect --index', () => {
  it("fills an index from the workers' shards as jepa index add does", async () => {
    expect(jepa('queue', 'add', 'photos', join(work, 'photos'), '--batch', '3').status).toBe(0);
    worker = spawn(process.execPath, [main, 'worker', 'photos', '-m', model, '--out', join(work, 'shards'), '-t', '1'], {
      env: { ...process.env, JEPA_DEVICE: 'cpu', JEPA_REDIS_URL: redis.url },
      stdio: 'ignore',
    });
    for (let i = 0; i < 600; i++) {
      const s = jepa('queue', 'status', 'photos', '--json');
      if (s.status === 0 && JSON.parse(s.stdout).completed === 4) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    worker.kill('SIGTERM');
    const db = join(work, 'db');
    expect(jepa('queue', 'collect', 'photos', '--index', db).stderr).toMatch(/--index needs -m MODEL/);
    const c = jepa('queue', 'collect', 'photos', '--index', db, '-m', model);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toMatch(/10 files added to .* \(0 unchanged\); the index holds 10 rows/);
    const again = jepa('queue', 'collect', 'photos', '--index', db, '-m', model);
    expect(again.stderr).toMatch(/0 files added to .* \(10 unchanged\); the index holds 10 rows/);
    const direct = join(work, 'direct');
    expect(jepa('index', 'add', '--db', direct, '-m', model, join(work, 'photos'), '-t', '1').status).toBe(0);
    const a = rows(db);
    const b = rows(direct);
    expect(a.map((r) => r.path)).toEqual(b.map((r) => r.path));
    for (const [i, r] of a.entries()) {
      let dot = 0;
      for (let j = 0; j < r.vector.length; j++) dot += r.vector[j]! * b[i]!.vector[j]!;
      expect(dot).toBeGreaterThan(0.99999);
    }
    // a query finds each collected image first
    const s = jepa('search', '--db', db, images[4]!, '-k', '1', '--json');
    expect(JSON.parse(s.stdout).path).toBe(images[4]);
  }, 180_000);
});
