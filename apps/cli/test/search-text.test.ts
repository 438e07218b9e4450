// `jepa search --text` as a user runs it. The tiny dino.txt of fixtures/reference/dinotxt, converted here:
// an index of a few photos and a video's windows (pool "aligned") searched by words ranks the rows as the
// brute-force cosine between the reference's float64 text vector (fixtures/reference/dinotxt, made from
// Meta's sources, independent of this engine) and the photos' `jepa embed` vectors, its scores those of
// `jepa embed --text`'s vector, and a window hit
// carries its times. Many queries in one process (--text repeated, --texts - on standard input) give each
// query exactly the hits its one-off command gives, labelled with its words, each answered before the
// next line is read. An index made by a model without a text side refuses words in one line before any
// model loads, and so do words given with another query, and a standard input with no words.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { VectorIndex } from '@jepa/search';
import { cliMain, convertDinotxt, dinotxtReference, runCli, SAMPLE_MP4, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-search-text-'));
const jepa = (...args: string[]) => runCli(args, { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 });
const jepaFed = (input: string, ...args: string[]) => runCli(args, { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000, input });
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

describe('jepa search with many word queries in one process', () => {
  const textDb = join(work, 'many-db');
  let texts: string[] = [];
  const oneOff = new Map<string, { json: string[]; plain: string[] }>();
  const lines = (out: string) => out.split('\n').filter((l) => l !== '');

  beforeAll(() => {
    const model = convertDinotxt(join(work, 'dinotxt-many.gguf'));
    ({ texts } = dinotxtReference());
    mkdirSync(join(work, 'many-photos'));
    for (let i = 0; i < 5; i++) writeFileSync(join(work, 'many-photos', `m${i}.png`), seededPng(32 + 8 * i, 40 - 4 * i, 300 + i));
    const r = jepa('index', 'add', '--db', textDb, '-m', model, join(work, 'many-photos'), '--threads', '2');
    expect(r.status, r.stderr).toBe(0);
    for (const t of [texts[0]!, texts[1]!, texts[3]!]) {
      const json = jepa('search', '--db', textDb, '--text', t, '-k', '4', '--json', '--threads', '2');
      const plain = jepa('search', '--db', textDb, '--text', t, '-k', '4', '--threads', '2');
      expect(json.status, json.stderr).toBe(0);
      expect(plain.status, plain.stderr).toBe(0);
      oneOff.set(t, { json: lines(json.stdout), plain: lines(plain.stdout) });
    }
    // a control: the queries' one-off answers differ, so an answer given to the wrong query fails below
    expect(new Set([...oneOff.values()].map((o) => o.json.join())).size).toBe(3);
  }, 180_000);

  /** The JSON hit lines grouped by their "query" field, in the order the queries come, the field taken off. */
  const byQuery = (out: string) => {
    const groups: { query: string; hits: string[] }[] = [];
    for (const line of lines(out)) {
      const { query, ...hit } = JSON.parse(line) as { query: unknown };
      expect(typeof query, line).toBe('string');
      if (groups.at(-1)?.query !== query) groups.push({ query: query as string, hits: [] });
      groups.at(-1)!.hits.push(JSON.stringify(hit));
    }
    return groups;
  };

  it("--text repeated: each query's JSON hits are the one-off command's, each carrying its words", () => {
    const r = jepa('search', '--db', textDb, '--text', texts[0]!, '--text', texts[3]!, '--text', texts[1]!, '-k', '4', '--json', '--threads', '2');
    expect(r.status, r.stderr).toBe(0);
    const groups = byQuery(r.stdout);
    expect(groups.map((g) => g.query)).toEqual([texts[0], texts[3], texts[1]]);
    for (const g of groups) expect(g.hits, g.query).toEqual(oneOff.get(g.query)!.json);
  });

  it('--texts - reads standard input a line per query, blank lines and CRLF endings skipped', () => {
    const r = jepaFed(
      `${texts[3]}\r\n\n  \n${texts[0]}\n${texts[3]}`,
      'search',
      '--db',
      textDb,
      '--texts',
      '-',
      '-k',
      '4',
      '--json',
      '--threads',
      '2',
    );
    expect(r.status, r.stderr).toBe(0);
    const groups = byQuery(r.stdout);
    // the same query twice in a row reads as one group of twice the hits
    expect(groups.map((g) => g.query)).toEqual([texts[3], texts[0], texts[3]]);
    for (const g of groups) expect(g.hits, g.query).toEqual(oneOff.get(g.query)!.json);
  });

  it("in text mode, a `# words` line before each query's hits, which are the one-off lines", () => {
    const r = jepaFed(`${texts[1]}\n`, 'search', '--db', textDb, '--text', texts[0]!, '--texts', '-', '-k', '4', '--threads', '2');
    expect(r.status, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([`# ${texts[0]}`, ...oneOff.get(texts[0]!)!.plain, `# ${texts[1]}`, ...oneOff.get(texts[1]!)!.plain]);
  });

  it('answers each line before the next is written', async () => {
    const child = spawn(process.execPath, [cliMain(), 'search', '--db', textDb, '--texts', '-', '-k', '2', '--json', '--threads', '2'], {
      env: { ...process.env, JEPA_DEVICE: 'cpu' },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exit = new Promise<number | null>((done) => child.once('exit', done));
    // resolves once `n` hit lines have come, fails if the process ends first
    const hitLines = (n: number) =>
      new Promise<void>((done, fail) => {
        const check = () => lines(out).length >= n && done();
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          check();
        });
        void exit.then((code) => fail(new Error(`exited (${code}) with ${lines(out).length} of ${n} lines: ${err}`)));
        check();
      });
    child.stdin.write(`${texts[1]}\n`);
    await hitLines(2);
    child.stdin.write(`${texts[0]}\n`);
    await hitLines(4);
    child.stdin.end();
    expect(await exit, err).toBe(0);
    expect(byQuery(out).map((g) => g.query)).toEqual([texts[1], texts[0]]);
  }, 60_000);

  it('refuses a standard input with no words, or a --texts file that is not there, in one line', () => {
    expect(oneLine(jepa('search', '--db', textDb, '--texts', join(work, 'no-such-queries.txt')))).toMatch(/no-such-queries\.txt/);
    expect(oneLine(jepaFed('', 'search', '--db', textDb, '--texts', '-'))).toBe('jepa: nothing to search for: standard input has no text lines');
    expect(oneLine(jepaFed('\n  \n', 'search', '--db', textDb, '--texts', '-'))).toBe(
      'jepa: nothing to search for: standard input has no text lines',
    );
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
    expect(oneLine(jepa('search', '--db', db, '--text', 'a dog', '--text', ' '))).toMatch(/--text: give some words/);
  });

  it('many queries on an index of image vectors, before any model loads (a missing -m file is never reached)', () => {
    const missing = join(work, 'no-such-model.gguf');
    const refusal = /^jepa: --texts?: the index holds vit\.gguf's "cls" vectors, not a text model's aligned ones/;
    expect(oneLine(jepaFed('a red car\n', 'search', '--db', db, '-m', missing, '--texts', '-'))).toMatch(refusal);
    expect(oneLine(jepa('search', '--db', db, '-m', missing, '--text', 'a red car', '--text', 'a dog'))).toMatch(refusal);
    // the control: the same -m fails on its own once the refusal is not in the way
    expect(oneLine(jepa('search', '--db', db, '-m', missing, photo))).toMatch(/no-such-model\.gguf/);
  });
});
