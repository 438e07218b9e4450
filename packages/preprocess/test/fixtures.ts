import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'preprocess');

export function fixturePath(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

export function readFixture(...parts: string[]): Uint8Array {
  const bytes = readFileSync(fixturePath(...parts));
  return parts[parts.length - 1].endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

export function readJsonFixture<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(fixturePath(...parts), 'utf8')) as T;
}

/** Same integer formula as procedural_image() in scripts/gen_resize_goldens.py. */
export function proceduralImage(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        const v = (x * (3 + c) + y * (5 + 2 * c) + ((x * y + 7 * c) % 37) * 9 + ((Math.floor(x / 13) + Math.floor(y / 11)) % 2) * 96) % 256;
        out[(y * width + x) * 3 + c] = v;
      }
    }
  }
  return out;
}

/** Index and values of the first differing byte, for a readable failure. */
export function firstDifference(a: Uint8Array, b: Uint8Array): string {
  if (a.length !== b.length) return `lengths differ: ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `byte ${i}: ${a[i]} vs ${b[i]}`;
  return 'identical';
}

/** Distance in float32 units in the last place between two float32 values. */
export function ulpDistance(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat32(0, a);
  view.setFloat32(4, b);
  const ia = view.getInt32(0);
  const ib = view.getInt32(4);
  // Map sign-magnitude bit patterns onto one monotonic integer line.
  const ka = ia < 0 ? -0x80000000 - ia : ia;
  const kb = ib < 0 ? -0x80000000 - ib : ib;
  return Math.abs(ka - kb);
}
