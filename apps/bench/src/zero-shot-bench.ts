// jepa-bench zero-shot: zero-shot classes of a folder of photos against L labels, end to end as a user runs it
// (`jepa classify -m M --labels FILE FOLDER --json`, a process per run), on a forged dino.txt at real size: the
// ViT-L/16 backbone at 224, the two head blocks, the 24 x 1280 text tower (random weights). Two folder sizes give
// the rate with the process, the load and the labels' text vectors in it, and the rate per extra photo without.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '@jepa/testing';
import { cliMain } from './bins.js';
import { median } from './stats.js';
import { textModel } from './text-bench.js';

export interface ZeroShotOptions {
  dtype: string;
  images: number[];
  labels: number;
  runs: number;
  threads: number;
  dir: string;
}

export interface ZeroShotRow {
  images: number;
  wallMs: number[];
  medianMs: number;
  imagesPerSecond: number;
}

/** L labels in words, each different (so no two share a text vector). */
function labelLines(n: number): string {
  const things = ['dog', 'cat', 'car', 'bicycle', 'tree', 'house', 'boat', 'bird', 'person', 'mountain'];
  const looks = [
    'a photo of a',
    'a blurry photo of a',
    'a close-up of a',
    'a painting of a',
    'a small',
    'a large',
    'a red',
    'a dark',
    'a bright',
    'an old',
  ];
  return `${Array.from({ length: n }, (_, i) => `${looks[Math.floor(i / things.length) % looks.length]} ${things[i % things.length]} ${i >= 100 ? i : ''}`.trim()).join('\n')}\n`;
}

/** A folder of n photos: copies of the committed sample JPEG (each is decoded, resized and encoded in full). */
function photoFolder(root: string, n: number): string {
  const dir = join(root, `photos-${n}`);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) copyFileSync(fixturePath('preprocess', 'sample.jpg'), join(dir, `photo-${String(i).padStart(4, '0')}.jpg`));
  return dir;
}

export async function runZeroShotBench(
  o: ZeroShotOptions,
  log: (line: string) => void,
): Promise<{ model: string; rows: ZeroShotRow[]; marginalImagesPerSecond: number | null }> {
  const model = await textModel(o.dtype, o.dir, 'vitl16');
  const root = mkdtempSync(join(tmpdir(), 'jepa-zero-shot-'));
  try {
    const labels = join(root, 'labels.txt');
    writeFileSync(labels, labelLines(o.labels));
    const rows: ZeroShotRow[] = [];
    for (const n of o.images) {
      const folder = photoFolder(root, n);
      const wallMs: number[] = [];
      for (let r = 0; r < o.runs; r++) {
        const t0 = performance.now();
        const run = spawnSync(
          process.execPath,
          [cliMain(), 'classify', '-m', model, '--labels', labels, '-k', '5', '-t', String(o.threads), '--json', folder],
          {
            encoding: 'utf8',
            maxBuffer: 1 << 28,
            env: { ...process.env, JEPA_DEVICE: 'cpu' },
          },
        );
        const ms = performance.now() - t0;
        if (run.status !== 0) throw new Error(`jepa classify failed (${run.status}): ${run.stderr.trim().split('\n').at(-1)}`);
        const out = JSON.parse(run.stdout) as unknown;
        const got = Array.isArray(out) ? out.length : 1;
        if (got !== n) throw new Error(`jepa classify gave ${got} rows for ${n} photos`);
        wallMs.push(ms);
        log(`zero-shot ${o.dtype}: ${n} photos x ${o.labels} labels: ${ms.toFixed(0)} ms`);
      }
      const m = median(wallMs);
      rows.push({ images: n, wallMs, medianMs: m, imagesPerSecond: (1000 * n) / m });
    }
    const [a, b] = [rows[0], rows.at(-1)];
    const marginal = a && b && b.images > a.images ? (1000 * (b.images - a.images)) / (b.medianMs - a.medianMs) : null;
    return { model, rows, marginalImagesPerSecond: marginal };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
