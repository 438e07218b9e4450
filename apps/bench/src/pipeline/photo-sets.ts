// The photo sets of jepa-bench pipeline, made by scripts/bench/make_photo_sets.py (Debian Python,
// Pillow, numpy) when missing: deterministic for a seed, so every machine times the same bytes.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEBIAN_PYTHON, repoRoot } from './peer-common.js';

export interface PhotoSets {
  /** DIR/large: 1.4 to 24 MP photos, sorted absolute paths. */
  large: string[];
  /** DIR/1024: the same photos at 1024 px on the long side, sorted absolute paths. */
  small: string[];
}

export interface PhotoSetOptions {
  /** Photos in each set (default 24). */
  count?: number;
  /** Generator seed (default 0). */
  seed?: number;
}

/** make_photo_sets.py's GENERATOR_VERSION: a set written by another version is made again. */
const GENERATOR_VERSION = 1;

interface Manifest {
  kind: 'sets' | 'small-only';
  version: number;
  count: number;
  seed: number;
}

function jpegs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => join(dir, f));
}

function complete(out: string, kind: Manifest['kind'], count: number, seed: number): boolean {
  const path = join(out, 'manifest.json');
  if (!existsSync(path)) return false;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    if (m.kind !== kind || m.version !== GENERATOR_VERSION || m.count !== count || m.seed !== seed) return false;
  } catch {
    return false;
  }
  return (kind === 'small-only' || jpegs(join(out, 'large')).length === count) && jpegs(join(out, '1024')).length === count;
}

function generate(out: string, args: string[], log: (s: string) => void): void {
  const r = spawnSync(DEBIAN_PYTHON, [join(repoRoot, 'scripts/bench/make_photo_sets.py'), out, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const line of (r.stdout ?? '').trim().split('\n')) if (line && !line.startsWith('  ')) log(line);
  if (r.status !== 0) {
    throw new Error(
      `make_photo_sets.py failed (needs ${DEBIAN_PYTHON} with python3-pil and python3-numpy): ${(r.stderr ?? r.error?.message ?? '').trim().slice(-2000)}`,
    );
  }
}

/** DIR/large and DIR/1024, generated if missing (or made with another count, seed or generator version). */
export function ensurePhotoSets(dir: string, log: (s: string) => void, opts: PhotoSetOptions = {}): PhotoSets {
  const out = resolve(dir);
  const count = opts.count ?? 24;
  const seed = opts.seed ?? 0;
  if (!complete(out, 'sets', count, seed)) {
    log(`generating ${count} photos and their 1024-px copies in ${out} (seed ${seed})`);
    generate(out, ['--count', String(count), '--seed', String(seed)], log);
    if (!complete(out, 'sets', count, seed)) throw new Error(`make_photo_sets.py left ${out} incomplete`);
  }
  return { large: jpegs(join(out, 'large')), small: jpegs(join(out, '1024')) };
}

/**
 * `n` 1024-px photos for a memory test, in DIR/many-N/1024 (generated if missing): a few scenes
 * varied cheaply, so a thousand take about a minute. Sorted absolute paths.
 */
export function ensureManySmall(dir: string, n: number, log: (s: string) => void, opts: { seed?: number } = {}): string[] {
  if (!Number.isInteger(n) || n < 1) throw new Error(`ensureManySmall: n must be a positive integer, got ${n}`);
  const out = join(resolve(dir), `many-${n}`);
  const seed = opts.seed ?? 0;
  if (!complete(out, 'small-only', n, seed)) {
    log(`generating ${n} 1024-px photos in ${out} (seed ${seed})`);
    generate(out, ['--small-only', '--count', String(n), '--seed', String(seed)], log);
    if (!complete(out, 'small-only', n, seed)) throw new Error(`make_photo_sets.py left ${out} incomplete`);
  }
  return jpegs(join(out, '1024'));
}
