// `jepa search --text` as a user runs it: an index made by a model without a text side refuses words in
// one line before any model loads, and so do words given with another query.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { runCli, seededPng } from '@jepa/testing';
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
