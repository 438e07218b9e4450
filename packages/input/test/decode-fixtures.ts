import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readNpy, type RgbImage } from '@jepa/preprocess';

export const DECODE_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'input', 'decode');

export interface FixtureEntry {
  format?: string;
  pilMode?: string;
  width?: number;
  height?: number;
  orientation?: number;
  frames?: number;
  golden?: string;
  stored?: string;
  refused?: boolean;
  pillowError?: string;
}

export const index: Record<string, FixtureEntry> = Object.fromEntries(
  Object.entries(JSON.parse(readFileSync(join(DECODE_FIXTURES, 'index.json'), 'utf8')) as Record<string, FixtureEntry>).filter(
    ([name]) => !name.startsWith('_'),
  ),
);

export function fixture(name: string): Buffer {
  return readFileSync(join(DECODE_FIXTURES, name));
}

/** A Pillow golden (.pil.npy.gz, uint8 HWC) as an RgbImage. */
export function golden(name: string): RgbImage {
  const npy = readNpy(gunzipSync(readFileSync(join(DECODE_FIXTURES, name))));
  if (npy.dtype !== 'uint8' || npy.shape.length !== 3 || npy.shape[2] !== 3) {
    throw new Error(`${name}: expected uint8 HWC RGB, got ${npy.dtype} ${npy.shape.join('x')}`);
  }
  return { width: npy.shape[1], height: npy.shape[0], data: npy.data as Uint8Array };
}

export interface Difference {
  sameShape: boolean;
  maxAbs: number;
  meanAbs: number;
  /** Bytes that differ. */
  differing: number;
}

export function compareRgb(got: RgbImage, want: RgbImage): Difference {
  const sameShape = got.width === want.width && got.height === want.height && got.data.length === want.data.length;
  if (!sameShape) return { sameShape, maxAbs: Number.NaN, meanAbs: Number.NaN, differing: Number.NaN };
  let maxAbs = 0;
  let sum = 0;
  let differing = 0;
  for (let i = 0; i < want.data.length; i++) {
    const d = Math.abs(got.data[i] - want.data[i]);
    if (d !== 0) {
      differing++;
      sum += d;
      if (d > maxAbs) maxAbs = d;
    }
  }
  return { sameShape, maxAbs, meanAbs: sum / want.data.length, differing };
}

export const IDENTICAL: Difference = { sameShape: true, maxAbs: 0, meanAbs: 0, differing: 0 };
