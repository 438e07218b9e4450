// jepa embed --fast-decode on a camera-size JPEG: close to the full decode's embedding, not equal to
// it; without the flag the embedding is the full (Pillow-exact) decode's.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeImage } from '@jepa/input';
import { readNpy } from '@jepa/preprocess';
import { DEMO_MODEL, rgbPng, runCli } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

// sharp is @jepa/input's dependency, not the CLI's: it only writes the test photo here.
const require = createRequire(import.meta.url);
type RawToJpeg = (
  raw: Buffer,
  options: { raw: { width: number; height: number; channels: 3 } },
) => { jpeg(options: { quality: number }): { toFile(path: string): Promise<unknown> } };
const sharp = createRequire(require.resolve('@jepa/input'))('sharp') as RawToJpeg;

const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-fast-'));
const jpg = join(tmp, 'camera.jpg');
const decodedPng = join(tmp, 'camera-decoded.png');
const W = 3000;
const H = 2000;

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function embed(input: string, ...flags: string[]): Float32Array {
  const out = join(tmp, `e${Math.random().toString(36).slice(2)}.npy`);
  const r = jepa('embed', '-m', DEMO_MODEL, input, '-o', out, ...flags);
  expect(r.code, r.err).toBe(0);
  const npy = readNpy(out);
  expect(npy.shape).toEqual([1, 192]);
  return npy.data as Float32Array;
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

beforeAll(async () => {
  const raw = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = 3 * (y * W + x);
      const texture = 10 * Math.sin(x * 0.41) * Math.cos(y * 0.23);
      raw[i] = Math.max(0, Math.min(255, 30 + (180 * x) / W + texture));
      raw[i + 1] = Math.max(0, Math.min(255, 220 - (150 * y) / H + texture));
      raw[i + 2] = Math.max(0, Math.min(255, 128 + 90 * Math.sin((7 * x) / W + (3 * y) / H)));
    }
  await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .toFile(jpg);
  // The JPEG's full decode (Pillow's pixels) as a PNG: the embedding the JPEG had before the flag existed.
  const full = await decodeImage(readFileSync(jpg));
  writeFileSync(decodedPng, rgbPng(full.width, full.height, full.data));
});

describe('jepa embed --fast-decode', () => {
  it('is close to the full decode (cosine > 0.99) but not bit-equal; without it the JPEG embeds as its full decode', () => {
    const full = embed(jpg);
    const fast = embed(jpg, '--fast-decode');
    const reference = embed(decodedPng);
    expect(bits(full).equals(bits(reference))).toBe(true);
    expect(bits(fast).equals(bits(full))).toBe(false);
    expect(cosine(fast, full)).toBeGreaterThan(0.99);
    // A PNG has no DCT to scale: the flag leaves it as it was.
    expect(bits(embed(decodedPng, '--fast-decode')).equals(bits(reference))).toBe(true);
  });

  it('refuses --decoder js, naming both flags', () => {
    const r = jepa('embed', '-m', DEMO_MODEL, jpg, '-o', join(tmp, 'js.npy'), '--fast-decode', '--decoder', 'js');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --fast-decode needs --decoder native/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});
