// @jepa/search on real index files in a temp folder: exact search against a brute-force cosine computed
// here in float64, the approximate index against the exact one, dedupe against pairs found here,
// and the refusals (another model, a damaged file, a wrong query), each one line.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_APPROX, type IndexModel, SearchError, VectorIndex } from '../src/index.js';

const work = mkdtempSync(join(tmpdir(), 'jepa-search-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const D = 24;
const MODEL: IndexModel = { name: 'tiny', file: 'tiny.gguf', digest: 'ab'.repeat(32), dim: D, pool: 'cls' };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function vectors(n: number, seed: number): Float32Array[] {
  const next = rng(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: D }, () => next() * 2 - 1));
}

/** Cosine in float64, from the raw (not normalised) vectors. */
function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

function build(name: string, vs: Float32Array[]): VectorIndex {
  const index = VectorIndex.openOrCreate(join(work, name), MODEL);
  for (let start = 0; start < vs.length; start += 50) {
    const rows = vs.slice(start, start + 50).map((vector, j) => ({ path: `/data/f${start + j}.jpg`, vector }));
    index.commit(
      rows,
      rows.map((r) => ({ path: r.path, size: 100, mtimeMs: 1 })),
    );
  }
  return index;
}

describe('exact search', () => {
  const vs = vectors(400, 1);
  const index = build('exact', vs);
  afterAll(() => index.close());

  it('equals the brute-force cosine computed here', () => {
    for (const q of vectors(10, 2)) {
      const want = vs
        .map((v, i) => ({ id: i + 1, score: cosine(q, v) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const got = index.search(q, { k: 10, mode: 'exact' });
      expect(got.map((h) => h.id)).toEqual(want.map((w) => w.id));
      for (const [i, h] of got.entries()) expect(h.score).toBeCloseTo(want[i]!.score, 5);
      expect(got[0]!.path).toBe(`/data/f${want[0]!.id - 1}.jpg`);
    }
  });

  it('fails where the ranking is wrong (negative control: the least similar instead)', () => {
    const q = vectors(1, 3)[0]!;
    const worst = vs.map((v, i) => ({ id: i + 1, s: cosine(q, v) })).sort((a, b) => a.s - b.s)[0]!;
    expect(index.search(q, { k: 10, mode: 'exact' }).map((h) => h.id)).not.toContain(worst.id);
  });

  it('a stored row finds itself first at cosine 1, or leaves itself out', () => {
    const r = index.row(37);
    expect(index.search(r.vector, { k: 3, mode: 'exact' })[0]).toMatchObject({ id: 37, path: '/data/f36.jpg' });
    expect(index.search(r.vector, { k: 3, mode: 'exact' })[0]!.score).toBeCloseTo(1, 6);
    expect(index.search(r.vector, { k: 3, mode: 'exact', exclude: 37 }).map((h) => h.id)).not.toContain(37);
  });

  it('info counts rows, files, the dimension and the bytes on disk', () => {
    const info = index.info();
    expect(info).toMatchObject({ rows: 400, files: 400, dim: D, model: MODEL });
    expect(info.bytes).toBeGreaterThan(400 * D * 4);
  });
});

describe('the approximate index', () => {
  it('finds what exact search finds on a small set, and is rebuilt only when stale', () => {
    const vs = vectors(1000, 4);
    const index = build('approx', vs);
    const qs = vectors(20, 5);
    let hit = 0;
    for (const q of qs) {
      const exact = new Set(index.search(q, { k: 10, mode: 'exact' }).map((h) => h.id));
      for (const h of index.search(q, { k: 10, mode: 'approx' })) if (exact.has(h.id)) hit++;
    }
    expect(hit / 200).toBeGreaterThanOrEqual(0.95);
    expect(index.approxIndex().rebuilt).toBe(false);
    expect(readdirSync(join(work, 'approx')).filter((n) => n.endsWith('.usearch'))).toHaveLength(1);
    // an addition extends the graph; the new row is found
    const extra = vectors(1, 6)[0]!;
    index.commit([{ path: '/data/new.jpg', vector: extra }], [{ path: '/data/new.jpg', size: 1, mtimeMs: 1 }]);
    expect(index.search(extra, { k: 1, mode: 'approx' })[0]).toMatchObject({ path: '/data/new.jpg' });
    // a deletion: the graph is rebuilt without the file's row
    index.forget(['/data/new.jpg']);
    expect(index.search(extra, { k: 5, mode: 'approx' }).map((h) => h.path)).not.toContain('/data/new.jpg');
    expect(readdirSync(join(work, 'approx')).filter((n) => n.endsWith('.usearch'))).toHaveLength(1);
    index.close();
  });
  it('f32, f16 and i8 graphs: exact scores for the candidates they find; one graph file, of the kind asked for', () => {
    const vs = vectors(1000, 7);
    const index = build('scalars', vs);
    const qs = vectors(20, 8);
    const files = () => readdirSync(join(work, 'scalars')).filter((n) => n.endsWith('.usearch'));
    const bytes: number[] = [];
    // each kind is a new graph (the file of another kind is of no use) that replaces the file before it
    for (const scalar of ['f32', 'f16', 'i8'] as const) {
      const approx = { ...DEFAULT_APPROX, scalar };
      expect(index.approxIndex(approx).rebuilt).toBe(true);
      expect(files()).toEqual([expect.stringMatching(scalar === 'f32' ? /-m\d+\.usearch$/ : new RegExp(`-${scalar}\\.usearch$`))]);
      bytes.push(statSync(join(work, 'scalars', files()[0]!)).size);
      let hit = 0;
      for (const q of qs) {
        const exact = new Map(index.search(q, { k: 10, mode: 'exact' }).map((h) => [h.id, h.score]));
        for (const h of index.search(q, { k: 10, mode: 'approx', approx })) {
          if (!exact.has(h.id)) continue;
          hit++;
          expect(h.score).toBe(exact.get(h.id)); // scored again on the stored rows
        }
      }
      expect(hit / 200).toBeGreaterThanOrEqual(0.95);
    }
    // the graph holds its vectors in the kind asked for, not only under its name: the files differ by 1000
    // × 24 vectors of 4, 2 and 1 bytes (within 5 %: each build draws its own links)
    expect(Math.abs(bytes[0]! - bytes[1]! - 1000 * D * 2)).toBeLessThan(1000 * D * 2 * 0.05);
    expect(Math.abs(bytes[1]! - bytes[2]! - 1000 * D)).toBeLessThan(1000 * D * 0.05);
    expect(DEFAULT_APPROX.scalar).toBe('i8');
    expect(index.approxIndex(DEFAULT_APPROX).rebuilt).toBe(false);
    index.close();
  });
});

describe('dedupe', () => {
  it('groups exactly the pairs over the threshold, found here by brute force', () => {
    const base = vectors(60, 7);
    const next = rng(8);
    // 10 near copies of rows 0..9
    const vs = [...base, ...base.slice(0, 10).map((v) => v.map((x) => x + (next() - 0.5) * 0.02))];
    const index = build('dedupe', vs);
    const groups = index.dedupe(0.99, { mode: 'exact' });
    const pairs = new Set<string>();
    for (let i = 0; i < vs.length; i++) for (let j = i + 1; j < vs.length; j++) if (cosine(vs[i]!, vs[j]!) >= 0.99) pairs.add(`${i + 1}-${j + 1}`);
    expect(pairs.size).toBe(10);
    expect(groups.map((g) => g.map((h) => h.id).join('-')).sort()).toEqual([...pairs].sort());
    expect(
      index
        .dedupe(0.99, { mode: 'approx' })
        .map((g) => g.map((h) => h.id).join('-'))
        .sort(),
    ).toEqual([...pairs].sort());
    index.close();
  });
});

describe('refusals, each one line', () => {
  const oneLine = (fn: () => unknown, code: string) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(SearchError);
      expect((err as SearchError).code).toBe(code);
      expect((err as Error).message).not.toContain('\n');
      return (err as Error).message;
    }
    throw new Error(`expected ${code}`);
  };

  it('another model', () => {
    build('model', vectors(5, 9)).close();
    const msg = oneLine(() => VectorIndex.openOrCreate(join(work, 'model'), { ...MODEL, name: 'other', digest: 'cd'.repeat(32) }), 'index_model');
    expect(msg).toMatch(/holds vectors of tiny .*this query's model is other/);
  });

  it('a damaged index file', () => {
    const dir = join(work, 'corrupt');
    build('corrupt', vectors(5, 10)).close();
    for (const n of readdirSync(dir)) rmSync(join(dir, n));
    writeFileSync(join(dir, 'index.sqlite'), Buffer.alloc(8192, 0x5a));
    expect(oneLine(() => VectorIndex.open(dir), 'index_corrupt')).toMatch(/index.sqlite: not a readable index/);
  });

  it('no index, a query of the wrong width, an unknown row', () => {
    expect(oneLine(() => VectorIndex.open(join(work, 'nothing')), 'index_missing')).toMatch(/no index there/);
    const index = VectorIndex.open(join(work, 'model'));
    expect(oneLine(() => index.search(new Float32Array(D + 1), { k: 3 }), 'query_kind')).toMatch(/25-d vector; .* 24-d/);
    expect(oneLine(() => index.row(999), 'row_unknown')).toMatch(/no row 999/);
    index.close();
  });
});
