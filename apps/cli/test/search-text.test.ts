// `jepa search --text` as a user runs it. The tiny dino.txt of fixtures/reference/dinotxt, converted here:
// an index of a few photos and a video's windows (pool "aligned") searched by words ranks the rows as the
// brute-force cosine between the reference's float64 text vector (fixtures/reference/dinotxt, made from
// Meta's sources, independent of this engine) and the photos' `jepa embed` vectors, its scores those of
// `jepa embed --text`'s vector, and a window hit
// carries its times. An index made by a model without a text side refuses words in one line before any
// model loads, and so do words given with another query.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { VectorIndex } from '@jepa/search';
import { convertDinotxt, dinotxtReference, runCli, SAMPLE_MP4, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-search-text-'));
const jepa = (...args: string[]) => runCli(args, { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 });
const db = join(work, 'db');
let photo = '';

const oneLine = (r: { status: number | null; stderr: string }) => {
  expect(r.status).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
};

beforeAll(() => {
  mkdirSync(join(work, 'photos'));
  photo = join(work, 'photos', 'a.png');
  writeFileSync(photo, seededPng(16, 16, 3));
  const model = forgeModel('hfvit', { seed: 7, path: join(work, 'vit.gguf') }).path;
  const r = jepa('index', 'add', '--db', db, '-m', model, photo, '--threads', '1');
  expect(r.status, r.stderr).toBe(0);
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const unit = (v: ArrayLike<number>) => {
  const n = Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
  return Array.from(v, (x) => x / n);
};
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

interface Hit {
  id: number;
  path: string;
  score: number;
  start_s?: number;
  end_s?: number;
}

describe('jepa search --text on an index of a dino.txt model', () => {
  const textDb = join(work, 'text-db');
  const photos: string[] = [];
  let model = '';
  let texts: string[] = [];
  let textVectors: number[][] = [];

  beforeAll(() => {
    model = convertDinotxt(join(work, 'dinotxt.gguf'));
    ({ texts, textVectors } = dinotxtReference());
    mkdirSync(join(work, 'text-photos'));
    for (let i = 0; i < 6; i++) {
      const p = join(work, 'text-photos', `t${i}.png`);
      writeFileSync(p, seededPng(40 + 8 * i, 36 + 4 * i, 100 + i));
      photos.push(p);
    }
    const clip = join(work, 'clip.mp4');
    copyFileSync(SAMPLE_MP4, clip);
    const r = jepa('index', 'add', '--db', textDb, '-m', model, join(work, 'text-photos'), clip, '--window-seconds', '0.5', '--threads', '2');
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);

  it('the index knows its vectors are the aligned ones', () => {
    const index = VectorIndex.open(textDb);
    try {
      expect(index.model.pool).toBe('aligned');
      expect(index.model.dim).toBe(textVectors[0]!.length);
    } finally {
      index.close();
    }
  });

  it("ranks the photos as the brute-force cosine of the reference's text vector and jepa embed's image vectors", () => {
    const e = jepa('embed', '-m', model, ...photos, '--threads', '2');
    expect(e.status, e.stderr).toBe(0);
    const images = new Map(
      e.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { input: string; embedding: number[] })
        .map((j) => [j.input, unit(j.embedding)]),
    );
    expect(images.get(photos[0]!)!.length).toBe(textVectors[0]!.length);
    const ranking = (t: number) => photos.map((p) => ({ path: p, score: dot(images.get(p)!, textVectors[t]!) })).sort((a, b) => b.score - a.score);
    // a control: the texts rank the photos differently, so a search that ignored its words would fail below
    expect(
      new Set(
        [0, 1, 3].map((t) =>
          ranking(t)
            .map((w) => w.path)
            .join(),
        ),
      ).size,
    ).toBeGreaterThan(1);
    for (const t of [0, 1, 3]) {
      const want = ranking(t);
      const r = jepa('search', '--db', textDb, '--text', texts[t]!, '-k', '100', '--json', '--threads', '2');
      expect(r.status, r.stderr).toBe(0);
      const got = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Hit)
        .filter((h) => h.path.endsWith('.png'));
      expect(
        got.map((h) => h.path),
        texts[t],
      ).toEqual(want.map((w) => w.path));
      for (const [i, h] of got.entries()) expect(Math.abs(h.score - want[i]!.score), `${texts[t]} #${i}`).toBeLessThan(2e-3);
      // and, to float32 rounding, the cosine of `jepa embed --text`'s own vector
      const et = jepa('embed', '-m', model, '--text', texts[t]!, '--threads', '2');
      expect(et.status, et.stderr).toBe(0);
      const q = unit((JSON.parse(et.stdout.trim()) as { embedding: number[] }).embedding);
      for (const h of got) expect(Math.abs(h.score - dot(images.get(h.path)!, q)), h.path).toBeLessThan(1e-5);
    }
  });

  it("finds moments: the video's windows, with their times, scored as the reference's text vector against their rows", () => {
    const r = jepa('search', '--db', textDb, '--text', texts[1]!, '-k', '100', '--json', '--threads', '2');
    expect(r.status, r.stderr).toBe(0);
    const windows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Hit)
      .filter((h) => h.path.endsWith('clip.mp4'));
    expect(windows.map((w) => w.start_s).sort()).toEqual([0, 0.52, 1, 1.52]);
    for (const w of windows) expect(w.end_s!).toBeGreaterThanOrEqual(w.start_s!);
    const index = VectorIndex.open(textDb);
    try {
      for (const w of windows) expect(Math.abs(w.score - dot(unit(index.row(w.id).vector), textVectors[1]!))).toBeLessThan(2e-3);
    } finally {
      index.close();
    }
    const plain = jepa('search', '--db', textDb, '--text', texts[1]!, '-k', '3');
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('jepa search --text refuses, in one line', () => {
  it('an index of image vectors (a model without a text side), naming its model and pooling', () => {
    expect(oneLine(jepa('search', '--db', db, '--text', 'a red car'))).toMatch(
      /^jepa: --text: the index holds vit\.gguf's "cls" vectors, not a text model's aligned ones: words search only an index made by a dino\.txt model/,
    );
  });

  it('words with another query, or no words', () => {
    expect(oneLine(jepa('search', '--db', db, photo, '--text', 'a dog'))).toMatch(/give a query file or --text, not both/);
    expect(oneLine(jepa('search', '--db', db, '--text', 'a dog', '--row', '1'))).toMatch(/give --text or --row, not both/);
    expect(oneLine(jepa('search', '--db', db, '--text', 'a dog', '--start', '1'))).toMatch(/--start\/--end cut a clip; --text is words/);
    expect(oneLine(jepa('search', '--db', db, '--text', ' '))).toMatch(/--text: give some words/);
  });
});
