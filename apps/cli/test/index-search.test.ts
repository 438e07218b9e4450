// jepa index / jepa search as a user runs them, on real index files in a temp folder: exact search
// against a brute-force cosine of `jepa embed`'s vectors computed here, incremental adds after files
// change, appear and go, a SIGKILL mid-add then a rerun against a single-run build, and the refusals
// (another model, a damaged index, a query of the wrong kind), each one line.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, mulberry32 } from '@jepa/gguf';
import { VectorIndex } from '@jepa/search';
import { cliMain, pngOf, runCli, SAMPLE_MP4 } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = cliMain();
const work = mkdtempSync(join(tmpdir(), 'jepa-index-'));
const env = { JEPA_DEVICE: 'cpu' };
const N = 40;
let model = '';
let other = '';
let images: string[] = [];

function png(seed: number): Buffer {
  const next = mulberry32(seed * 7919 + 3);
  // coarse seeded blocks: images far apart in pixels, so their embeddings differ
  const blocks = Array.from({ length: 16 }, () => Math.floor(next() * 256));
  return pngOf(16, 16, (i, y) => {
    const x = Math.floor(i / 3);
    const c = i % 3;
    return (blocks[((y >> 2) * 4 + (x >> 2) + c * 5) % 16]! + x * 3 * c) % 256;
  });
}

function writeImage(path: string, seed: number, second: number): void {
  writeFileSync(path, png(seed));
  const t = new Date(Date.UTC(2025, 0, 2, 3, 4, second));
  utimesSync(path, t, t);
}

const jepa = (...args: string[]) => runCli(args, { env, timeout: 120_000 });

function add(db: string, inputs: string[], ...more: string[]) {
  return jepa('index', 'add', '--db', db, '-m', model, ...inputs, '--batch', '4', '--threads', '1', ...more);
}

/** An index's content, ids aside: path, window times and vector bytes of every row, sorted. */
function content(db: string): string[] {
  const index = VectorIndex.open(db);
  try {
    return [...index.rows()]
      .map((r) => `${r.path}|${r.window ?? ''}|${r.startS ?? ''}|${r.endS ?? ''}|${Buffer.from(r.vector.buffer).toString('hex')}`)
      .sort();
  } finally {
    index.close();
  }
}

function unitOf(values: number[]): number[] {
  const n = Math.sqrt(values.reduce((s, v) => s + v * v, 0));
  return values.map((v) => v / n);
}

beforeAll(() => {
  const dir = join(work, 'photos');
  mkdirSync(dir);
  images = Array.from({ length: N }, (_, i) => {
    const p = join(dir, `p${String(i).padStart(2, '0')}.png`);
    writeImage(p, i, i);
    return p;
  });
  model = forgeModel('hfvit', { seed: 7, path: join(work, 'model.gguf') }).path;
  other = forgeModel('hfvit', { seed: 8, path: join(work, 'other.gguf') }).path;
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('an index pooled cls+mean (a forged DINOv3)', () => {
  it('holds 2·D-wide rows and ranks as the brute-force cosine of jepa embed --pool cls+mean', () => {
    const d3 = forgeModel('dinov3', { seed: 9, path: join(work, 'dinov3.gguf') }).path;
    const db = join(work, 'db-cls-mean');
    const few = images.slice(0, 8);
    const r = jepa('index', 'add', '--db', db, '-m', d3, ...few, '--pool', 'cls+mean', '--threads', '1');
    expect(r.status, r.stderr).toBe(0);
    const info = jepa('index', 'info', '--db', db, '--json');
    expect(JSON.parse(info.stdout)).toMatchObject({ rows: 8, dim: 64, model: { name: 'forged-dinov3', pool: 'cls+mean' } });
    const e = jepa('embed', '-m', d3, ...few, '--pool', 'cls+mean', '--threads', '1');
    expect(e.status, e.stderr).toBe(0);
    const vectors = e.stdout
      .trim()
      .split('\n')
      .map((l) => unitOf((JSON.parse(l) as { embedding: number[] }).embedding));
    const q = vectors[2]!;
    const want = few.map((p, i) => ({ path: p, score: vectors[i]!.reduce((s, v, k) => s + v * q[k]!, 0) })).sort((a, b) => b.score - a.score);
    const got = jepa('search', '--db', db, few[2]!, '-k', '8', '--json', '--threads', '1');
    expect(got.status, got.stderr).toBe(0);
    const hits = got.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; score: number });
    expect(hits.map((h) => h.path)).toEqual(want.map((w) => w.path));
    for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(want[i]!.score, 5);
  });
});

describe('jepa search', () => {
  const db = join(work, 'db');
  let vectors = new Map<string, number[]>();

  beforeAll(() => {
    const r = add(db, [join(work, 'photos'), SAMPLE_MP4], '--window-seconds', '0.5');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/41 files embedded \(44 rows\)/);
    const e = jepa('embed', '-m', model, ...images, '--threads', '1');
    expect(e.status, e.stderr).toBe(0);
    vectors = new Map(
      e.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { input: string; embedding: number[] })
        .map((j) => [j.input, unitOf(j.embedding)]),
    );
  }, 120_000);

  it('gives the brute-force cosine ranking of jepa embed vectors, computed here', () => {
    for (const q of [images[3]!, images[17]!, images[33]!]) {
      const qv = vectors.get(q)!;
      const want = images
        .map((p) => ({ path: p, score: vectors.get(p)!.reduce((s, v, i) => s + v * qv[i]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5);
      const r = jepa('search', '--db', db, q, '-k', '5', '--json', '--threads', '1');
      expect(r.status, r.stderr).toBe(0);
      const got = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { path: string; score: number });
      // the video's windows are not images: the ranking among the images must match
      const gotImages = got.filter((h) => h.path.endsWith('.png'));
      expect(gotImages.map((h) => h.path)).toEqual(want.slice(0, gotImages.length).map((w) => w.path));
      for (const [i, h] of gotImages.entries()) expect(h.score).toBeCloseTo(want[i]!.score, 5);
      expect(got[0]).toMatchObject({ path: q });
    }
  });

  it('answers a stored row, a video window with its times, and a clip range', () => {
    const r = jepa('search', '--db', db, '--row', '5', '-k', '3', '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    expect(r.stdout).not.toMatch(/"id":5,/);
    const v = jepa('search', '--db', db, SAMPLE_MP4, '--start', '0.5', '--end', '1', '-k', '50', '--json');
    expect(v.status, v.stderr).toBe(0);
    const windows = v.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((h) => h.path === SAMPLE_MP4);
    expect(windows.map((w) => w.start_s).sort()).toEqual([0, 0.52, 1, 1.52]);
    expect(windows.every((w) => typeof w.end_s === 'number' && typeof w.window === 'number')).toBe(true);
    const text = jepa('search', '--db', db, SAMPLE_MP4, '-k', '50');
    expect(text.stdout).toMatch(/sample\.mp4 \[0\.52-0\.52 s\]/);
  });

  it('info and dedupe', () => {
    const info = jepa('index', 'info', '--db', db, '--json');
    expect(info.status, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ rows: 44, files: 41, dim: 32, model: { name: 'forged-hfvit', pool: 'cls', file: 'model.gguf' } });
    expect(JSON.parse(info.stdout).bytes).toBeGreaterThan(44 * 32 * 4);
    const d = jepa('index', 'dedupe', '--db', db, '--threshold', '1', '--json');
    expect(d.status, d.stderr).toBe(0);
    expect(d.stderr).toMatch(/groups of near-duplicates at cosine >= 1/);
  });
});

describe('jepa index add, again', () => {
  it('re-embeds only changed and new files; prune drops the gone; the result equals a single-run build', () => {
    const dir = join(work, 'inc');
    mkdirSync(dir);
    const files = images.slice(0, 10).map((p, i) => {
      const q = join(dir, `f${i}.png`);
      copyFileSync(p, q);
      utimesSync(q, new Date(1e12 + i), new Date(1e12 + i));
      return q;
    });
    const db = join(work, 'inc-db');
    expect(add(db, [dir]).status).toBe(0);
    writeImage(files[2]!, 500, 50); // changed
    writeImage(join(dir, 'f10.png'), 501, 51); // new
    unlinkSync(files[7]!); // gone
    const again = add(db, [dir]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/8 files unchanged, 2 to embed/);
    const pruned = jepa('index', 'prune', '--db', db);
    expect(pruned.stderr).toMatch(/1 files gone, 1 rows dropped/);
    const fresh = join(work, 'inc-fresh');
    expect(add(fresh, [dir]).status).toBe(0);
    expect(content(db)).toEqual(content(fresh));
    expect(content(db)).toHaveLength(10);
    // negative control: the index before the prune differs from the fresh build
    const unpruned = join(work, 'inc-unpruned');
    copyFileSync(join(dir, 'f0.png'), join(work, 'f0-copy.png'));
    expect(add(unpruned, [dir, join(work, 'f0-copy.png')]).status).toBe(0);
    expect(content(unpruned)).not.toEqual(content(fresh));
  });
});

describe('a SIGKILL mid-add', () => {
  it('loses nothing committed, and a rerun gives the single-run index', async () => {
    const reference = join(work, 'kill-ref');
    expect(add(reference, [join(work, 'photos')]).status).toBe(0);
    // every COMMIT of the child waits 40 ms after it is durable, so a kill lands between batches or within one
    const hook = join(work, 'slow-commit.mjs');
    writeFileSync(
      hook,
      `import sqlite from 'node:sqlite';
const cell = new Int32Array(new SharedArrayBuffer(4));
const exec = sqlite.DatabaseSync.prototype.exec;
sqlite.DatabaseSync.prototype.exec = function (sql) { const r = exec.call(this, sql); if (sql === 'COMMIT') Atomics.wait(cell, 0, 0, 40); return r; };
`,
    );
    const db = join(work, 'kill-db');
    for (const killAt of [8, 24]) {
      const child = spawn(
        process.execPath,
        ['--import', hook, main, 'index', 'add', '--db', db, '-m', model, join(work, 'photos'), '--batch', '2', '--threads', '1'],
        {
          env: { ...process.env, ...env },
          stdio: 'ignore',
        },
      );
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      let rows = 0;
      for (let tries = 0; tries < 3000 && rows < killAt; tries++) {
        await new Promise((r) => setTimeout(r, 5));
        try {
          const reader = VectorIndex.open(db);
          rows = reader.info().rows;
          reader.close();
        } catch {}
      }
      child.kill('SIGKILL');
      expect(await exited).toBe(null); // killed, not finished
      const committed = content(db);
      expect(committed.length).toBeGreaterThanOrEqual(killAt);
      expect(committed.length).toBeLessThan(N);
      const ref = new Set(content(reference));
      for (const row of committed) expect(ref.has(row)).toBe(true);
    }
    const rerun = add(db, [join(work, 'photos')]);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/files unchanged, \d+ to embed/);
    expect(content(db)).toEqual(content(reference));
  }, 120_000);
});

describe('refusals, each one line', () => {
  const oneLine = (r: { status: number | null; stderr: string }) => {
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  it("another model's query, or another model's add", () => {
    const db = join(work, 'db');
    expect(oneLine(jepa('search', '--db', db, images[0]!, '-m', other))).toMatch(
      /^jepa: .*db holds vectors of forged-hfvit \(model\.gguf, .*this query's model is .*other\.gguf/,
    );
    expect(oneLine(jepa('index', 'add', '--db', db, '-m', other, images[0]!))).toMatch(/holds vectors of .*model\.gguf.*other\.gguf/);
  });

  it('a damaged index file', () => {
    const db = join(work, 'damaged');
    mkdirSync(db);
    writeFileSync(join(db, 'index.sqlite'), Buffer.alloc(4096, 0x41));
    expect(oneLine(jepa('search', '--db', db, images[0]!))).toMatch(/^jepa: .*index\.sqlite: not a readable index \(file is not a database\)/);
    expect(oneLine(jepa('index', 'info', '--db', join(work, 'nowhere')))).toMatch(/no index there/);
  });

  it('a query of the wrong kind', () => {
    const db = join(work, 'db');
    const notes = join(work, 'notes.txt');
    writeFileSync(notes, 'hello');
    expect(oneLine(jepa('search', '--db', db, notes))).toMatch(/notes\.txt: not an image or a video/);
    expect(oneLine(jepa('search', '--db', db, images[0]!, '--start', '1'))).toMatch(/--start\/--end cut a clip; .* is an image/);
    expect(oneLine(jepa('search', '--db', db, images[0]!, '--row', '3'))).toMatch(/not both/);
    expect(oneLine(jepa('search', '--db', db, '--row', '999'))).toMatch(/has no row 999/);
    expect(oneLine(jepa('index', 'add', '--db', db, '-m', model, images[0]!, '--pool', 'none'))).toMatch(/one vector per item/);
  });
});
