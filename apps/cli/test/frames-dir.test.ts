// --frames-dir DIR: a clip as a folder of frame images in natural name order gives the bits of the same
// frames as --frames-npy; an empty folder, frames of mixed sizes and too many frames are refused in one line.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { writeNpy } from '@jepa/preprocess';
import { rgbPng, runCli } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-frames-dir-'));
const W = 20;
const H = 16;
const COUNT = 10; // frame1 … frame10: natural order differs from the name order
let model = '';

/** Frame k's pixels: seeded, so every frame differs. */
function frame(k: number): Uint8Array {
  const rgb = new Uint8Array(W * H * 3);
  let s = (k * 2654435761) >>> 0;
  for (let i = 0; i < rgb.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    rgb[i] = s >>> 24;
  }
  return rgb;
}

function framesNpy(name: string, order: readonly number[]): string {
  const path = join(work, name);
  const data = new Uint8Array(order.length * W * H * 3);
  for (const [t, k] of order.entries()) data.set(frame(k), t * W * H * 3);
  writeNpy(path, data, [order.length, H, W, 3]);
  return path;
}

function jepa(args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function embed(flag: string, input: string, name: string): Buffer {
  const out = join(work, name);
  const r = jepa(['embed', '-m', model, flag, input, '--pool', 'none', '--threads', '1', '-o', out]);
  expect(r.code, r.err).toBe(0);
  return readFileSync(out);
}

beforeAll(() => {
  model = forgeModel('vjepa2', { seed: 5, path: join(work, 'vjepa2.gguf') }).path;
  const dir = join(work, 'clip');
  mkdirSync(dir);
  for (let k = 1; k <= COUNT; k++) writeFileSync(join(dir, `frame${k}.png`), rgbPng(W, H, frame(k)));
  writeFileSync(join(dir, 'notes.txt'), 'not a frame');
});

describe('jepa embed --frames-dir', () => {
  it('gives the bits of the same frames as --frames-npy, in natural name order', () => {
    const natural = Array.from({ length: COUNT }, (_, i) => i + 1);
    const fromDir = embed('--frames-dir', join(work, 'clip'), 'dir.npy');
    expect(fromDir.equals(embed('--frames-npy', framesNpy('natural.npy', natural), 'npy.npy'))).toBe(true);
    // negative control: the frames in plain name order (frame1, frame10, frame2, …) give other bits
    const byName = natural.map(String).sort().map(Number);
    expect(fromDir.equals(embed('--frames-npy', framesNpy('by-name.npy', byName), 'by-name-out.npy'))).toBe(false);
  });

  it('refuses an empty folder, mixed sizes and too many frames, in one line naming the flag', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const mixed = join(work, 'mixed');
    mkdirSync(mixed);
    writeFileSync(join(mixed, 'a.png'), rgbPng(W, H, frame(1)));
    writeFileSync(join(mixed, 'b.png'), rgbPng(H, H, frame(2).subarray(0, H * H * 3)));
    const many = join(work, 'many');
    mkdirSync(many);
    const tiny = rgbPng(2, 2, new Uint8Array(12));
    for (let k = 0; k < 129; k++) writeFileSync(join(many, `f${k}.png`), tiny);
    const cases: [string[], RegExp][] = [
      [['embed', '-m', model, '--frames-dir', empty], /^jepa: --frames-dir .*empty: no images in the folder/],
      [
        ['features', '-m', model, '--frames-dir', mixed, '--pca', '-o', join(work, 'f.png')],
        /^jepa: --frames-dir .*mixed: b\.png is 16x16 but a\.png is 20x16; the frames of a clip share one size$/m,
      ],
      [['embed', '-m', model, '--frames-dir', many], /^jepa: --frames-dir .*many: 129 frames; a folder clip takes at most 128$/m],
      [['classify', '-m', model, '--frames-dir', empty], /^jepa: --frames-dir .*empty: no images in the folder/],
      [
        ['features', '-m', model, '--frames-dir', join(work, 'absent'), '--pca', '-o', join(work, 'f.png')],
        /^jepa: --frames-dir .*absent: no such file or folder$/m,
      ],
    ];
    for (const [args, message] of cases) {
      const r = jepa(args);
      expect(r.code, r.err).not.toBe(0);
      expect(r.err).toMatch(/^jepa: [^\n]*\n$/);
      expect(r.err).toMatch(message);
    }
    // among embed's inputs a bad folder is one failed input, reported and skipped as a bad file is
    const r = jepa(['embed', '-m', model, '--frames-dir', mixed, join(work, 'clip'), '-o', join(work, 'm.npy')]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/mixed: --frames-dir .*mixed: b\.png is 16x16 but a\.png is 20x16; .*\(skipped\)$/m);
  });
});
