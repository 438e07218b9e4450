// DINOv3 through the CLI as a user runs it: converted from its HF folder, embedded at the recipe's size and at
// any --size (2-D RoPE has no table to resize), pooled as cls+mean, and mapped by features --pca on a
// non-square grid. --size is the same tensor jepa preprocess writes, and a bad one is refused in one line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE, runCli, SAMPLE_JPG } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-dinov3-'));
const model = join(tmp, 'dinov3.gguf');

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  const r = jepa('convert', join(REFERENCE, 'dinov3_hf'), '-o', model);
  expect(r.code, r.err).toBe(0);
});

describe('DINOv3 from the CLI', () => {
  it('preprocesses to the recipe (a 64 px square) by default, and to H x W with --size', () => {
    const square = join(tmp, 'square.npy');
    const wide = join(tmp, 'wide.npy');
    expect(jepa('preprocess', '-m', model, SAMPLE_JPG, '-o', square).code).toBe(0);
    expect(jepa('preprocess', '-m', model, SAMPLE_JPG, '--size', '48x80', '-o', wide).code).toBe(0);
    expect(readNpy(square).shape).toEqual([1, 3, 64, 64]);
    expect(readNpy(wide).shape).toEqual([1, 3, 48, 80]);
  });

  it('embeds at --size the vector of that preprocessed tensor, cls+mean 2·D wide', () => {
    const wide = join(tmp, 'wide-embed.npy');
    expect(jepa('preprocess', '-m', model, SAMPLE_JPG, '--size', '48x80', '-o', wide).code).toBe(0);
    const fromFile = join(tmp, 'from-file.npy');
    const fromTensor = join(tmp, 'from-tensor.npy');
    const atRecipe = join(tmp, 'at-recipe.npy');
    expect(jepa('embed', '-m', model, SAMPLE_JPG, '--size', '48x80', '--pool', 'cls+mean', '-o', fromFile, '-t', '2').code).toBe(0);
    expect(jepa('embed', '-m', model, '--input-npy', wide, '--pool', 'cls+mean', '-o', fromTensor, '-t', '2').code).toBe(0);
    expect(jepa('embed', '-m', model, SAMPLE_JPG, '--pool', 'cls+mean', '-o', atRecipe, '-t', '2').code).toBe(0);
    const a = readNpy(fromFile);
    expect(a.shape).toEqual([1, 64]);
    expect(Array.from(a.data as Float32Array)).toEqual(Array.from(readNpy(fromTensor).data as Float32Array));
    // negative control: the recipe's 64 px square is another input, so another vector
    expect(Array.from(readNpy(atRecipe).data as Float32Array)).not.toEqual(Array.from(a.data as Float32Array));
  });

  it('maps the patch features of a non-square --size with features --pca', () => {
    const r = jepa('features', '-m', model, SAMPLE_JPG, '--size', '96x160', '--pca', '-o', join(tmp, 'map.png'), '--json', '-t', '2');
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { grid: { h: number; w: number } };
    expect([j.grid.h, j.grid.w]).toEqual([6, 10]);
  });

  it('refuses a --size whose graph is over JEPA_MAX_GRAPH_MIB, in one line, as for any model', () => {
    const r = runCli(['embed', '-m', model, SAMPLE_JPG, '--size', '512', '-o', join(tmp, 'big.npy')], {
      env: { JEPA_DEVICE: 'cpu', JEPA_MAX_GRAPH_MIB: '1' },
    });
    expect(r.status).toBe(2);
    // the run's notices first, then the refusal as its one last line
    expect(r.stderr).toMatch(/\njepa: one item of 1029 tokens needs about \d+ MiB of graph memory, over JEPA_MAX_GRAPH_MIB=1\n$/);
  });

  it('refuses --size with an --input-npy tensor, which is already preprocessed, in one line', () => {
    const tensor = join(tmp, 'tensor.npy');
    expect(jepa('preprocess', '-m', model, SAMPLE_JPG, '-o', tensor).code).toBe(0);
    for (const cmd of [
      ['embed', '-o', join(tmp, 'y.npy')],
      ['features', '--pca', '-o', join(tmp, 'y.png')],
    ]) {
      const r = jepa(cmd[0]!, '-m', model, '--input-npy', tensor, '--size', '48x80', ...cmd.slice(1));
      expect(r.code).toBe(2);
      expect(r.err).toBe('jepa: --size resizes decoded images and frames; --input-npy is already preprocessed: give one of them\n');
    }
  });

  it.each(['0', 'big', '64x', '70000'])('refuses --size %s in one line', (size) => {
    const r = jepa('embed', '-m', model, SAMPLE_JPG, '--size', size, '-o', join(tmp, 'x.npy'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --size ".*" is not N or HxW \(pixels, height by width, each 1\.\.65536\)\n$/);
  });
});
