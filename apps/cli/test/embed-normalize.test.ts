// jepa embed --normalize: every vector (every token with --pool none) at unit L2 length, and exactly the
// session's l2NormalizeRows of the un-normalised output (the rule the server's and MCP's `normalize` use).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { l2NormalizeRows } from '@jepa/session';
import { forgeModel } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { runCli, seededPng } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-embed-normalize-'));
let model = '';
let images: string[] = [];

beforeAll(() => {
  model = forgeModel('hfvit', { seed: 3, path: join(work, 'hfvit.gguf') }).path;
  images = [1, 2, 3].map((seed) => {
    const path = join(work, `img${seed}.png`);
    writeFileSync(path, seededPng(20, 16, seed));
    return path;
  });
});

function embed(pool: string, ...flags: string[]): { values: Float32Array; shape: number[] } {
  const out = join(work, `${pool}-${flags.length}.npy`);
  const r = runCli(['embed', '-m', model, ...images, '--pool', pool, '--threads', '1', '-o', out, ...flags], { env: { JEPA_DEVICE: 'cpu' } });
  expect(r.status, r.stderr).toBe(0);
  const npy = readNpy(out);
  return { values: npy.data as Float32Array, shape: [...npy.shape] };
}

function rowNorms(values: Float32Array, width: number): number[] {
  const norms: number[] = [];
  for (let r = 0; r < values.length; r += width) {
    let s = 0;
    for (let d = 0; d < width; d++) s += values[r + d]! ** 2;
    norms.push(Math.sqrt(s));
  }
  return norms;
}

describe.each(['cls', 'mean', 'none'])('jepa embed --pool %s --normalize', (pool) => {
  it('gives unit rows, the engine rule applied to the plain output', () => {
    const plain = embed(pool);
    const normalized = embed(pool, '--normalize');
    expect(normalized.shape).toEqual(plain.shape);
    const width = plain.shape.at(-1)!;
    // negative control: the plain output is not unit length, so the check below can fail
    expect(rowNorms(plain.values, width).some((n) => Math.abs(n - 1) > 1e-3)).toBe(true);
    const norms = rowNorms(normalized.values, width);
    expect(norms.length).toBe(plain.values.length / width);
    for (const n of norms) expect(Math.abs(n - 1)).toBeLessThan(1e-5);
    const expected = plain.values.slice();
    l2NormalizeRows(expected, width);
    expect(Buffer.from(normalized.values.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });
});
