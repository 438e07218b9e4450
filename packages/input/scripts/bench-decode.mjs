// Decode time of one large JPEG: sharp (libvips, mozjpeg) at 1 and 2 libvips threads, on the machine
// as found and with one more CPU-bound process, against the pure-JS path (jpeg-js + libjpeg finishing).
// Usage, after `pnpm --filter @jepa/preprocess --filter @jepa/input build`:
//   node packages/input/scripts/bench-decode.mjs [runs=7] [width=4000] [height=3000]
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage as decodeJs } from '@jepa/preprocess';
import { DEFAULT_DECODE_THREADS, decodeImage, setDecodeThreads } from '../dist/decode/index.js';

if (process.argv[2] === '--spin') {
  for (;;);
}

const runs = Number(process.argv[2] ?? 7);
const width = Number(process.argv[3] ?? 4000);
const height = Number(process.argv[4] ?? 3000);

// A photo-like test card: smooth gradients plus fine texture, so the entropy decode has real work.
const raw = Buffer.alloc(width * height * 3);
for (let y = 0; y < height; y++) {
  for (let x = 0; x < width; x++) {
    const i = (y * width + x) * 3;
    const n = (x * 7919 + y * 104729) % 61;
    raw[i] = (x * 255) / width + n / 4;
    raw[i + 1] = (y * 255) / height + ((x ^ y) & 15);
    raw[i + 2] = 128 + 100 * Math.sin(x / 40 + y / 60) + n / 8;
  }
}
const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
  .jpeg({ quality: 90 })
  .toBuffer();

/** Median wall time of each candidate, run interleaved so that drifting machine load hits all alike. */
async function medians(candidates) {
  const times = candidates.map(() => []);
  for (let i = -1; i < runs; i++) {
    for (const [c, [, threads, fn]] of candidates.entries()) {
      if (threads) setDecodeThreads(threads);
      const t = performance.now();
      await fn();
      if (i >= 0) times[c].push(performance.now() - t);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
}

const candidates = [
  ['sharp, 1 thread', 1, () => decodeImage(jpeg)],
  ['sharp, 2 threads', 2, () => decodeImage(jpeg)],
  ['jpeg-js (@jepa/preprocess)', 0, async () => decodeJs(jpeg)],
];
const rows = [];
for (const busy of [false, true]) {
  const spinner = busy ? fork(fileURLToPath(import.meta.url), ['--spin']) : null;
  if (spinner) await new Promise((done) => setTimeout(done, 1000));
  const ms = await medians(candidates);
  for (const [i, [name]] of candidates.entries()) rows.push([name, busy, ms[i]]);
  spinner?.kill();
}
setDecodeThreads(DEFAULT_DECODE_THREADS);
console.log(`${width}x${height} JPEG q90 4:2:0, ${(jpeg.length / 1e6).toFixed(2)} MB, median of ${runs}`);
for (const [name, busy, ms] of rows)
  console.log(`${name.padEnd(28)} ${busy ? '+1 busy process' : 'as found       '} ${ms.toFixed(0).padStart(6)} ms`);
