import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { seededPng } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { agreements, runRetrievalBench, topK } from '../src/retrieval-bench.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-retrieval-'));

const photos = join(dir, 'photos');
const names = Array.from({ length: 10 }, (_, i) => `img${String(i).padStart(2, '0')}.png`);
mkdirSync(photos);
for (const [i, n] of names.entries()) writeFileSync(join(photos, n), seededPng(12 + i, 10 + (i % 3), i + 1));
writeFileSync(join(photos, 'notes.txt'), 'not an image');
const reference = forgeModel('hfvit', { seed: 1, path: join(dir, 'ref.gguf') });
const perturbed = forgeModel('hfvit', { seed: 2, path: join(dir, 'other-seed.gguf') });
const wider = forgeModel('hfvit', {
  path: join(dir, 'wider.gguf'),
  edit: (h) => ({ ...h, enc: { ...h.enc, embedDim: 64, headDim: 32 } }),
});

describe('jepa-bench retrieval', () => {
  it('top-K excludes the query and agreement counts the overlap', () => {
    const rows = [
      [1, 0],
      [0.9, 0.1],
      [0, 1],
      [0.1, 0.9],
    ].map((r) => {
      const v = Float32Array.from(r);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
    const t = topK(rows, 1);
    expect(t).toEqual([[1], [0], [3], [2]]);
    expect(agreements(t, [[1], [2], [3], [0]], 1)).toEqual([1, 0, 1, 0]);
  });

  it('the reference against itself agrees exactly; another seed does not', async () => {
    const log: string[] = [];
    const report = await runRetrievalBench(
      { reference: reference.path, models: [reference.path, perturbed.path], photos, top: 3, threads: 2, batch: 4 },
      (s) => log.push(s),
    );
    expect(report.images).toBe(10);
    expect(report.pool).toBe('cls');
    expect(report.dim).toBe(32);
    const [self, other] = report.rows;
    expect(self!.file).toBe('ref.gguf');
    expect(self!.dominantType).toBe('f32');
    expect(self!.agreementMean).toBe(1);
    expect(self!.agreementMin).toBe(1);
    expect(self!.cosineMean).toBeCloseTo(1, 5);
    expect(other!.file).toBe('other-seed.gguf');
    expect(other!.agreementMean).toBeLessThan(1);
    expect(other!.cosineMean).toBeLessThan(0.99);
    expect(log.some((l) => l.includes('10 / 10 images embedded'))).toBe(true);
  });

  it('--limit takes the first images by name; too few for K+1 is refused', async () => {
    await expect(
      runRetrievalBench({ reference: reference.path, models: [perturbed.path], photos, top: 3, limit: 3 }, () => undefined),
    ).rejects.toThrow(/3 jpg\/png images \(--limit 3\); top-3 neighbours among the other images need at least 4/);
    const r = await runRetrievalBench({ reference: reference.path, models: [reference.path], photos, top: 3, limit: 4, threads: 2 }, () => undefined);
    expect(r.images).toBe(4);
    expect(r.rows[0]!.agreementMean).toBe(1);
  });

  it('a model of another embedding width is refused', async () => {
    await expect(runRetrievalBench({ reference: reference.path, models: [wider.path], photos, top: 3, threads: 2 }, () => undefined)).rejects.toThrow(
      /wider\.gguf: embedding width 64 differs from the reference's 32/,
    );
  });
});
