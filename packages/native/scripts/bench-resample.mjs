#!/usr/bin/env node
// Native resample + crop (+ normalise) against @jepa/preprocess's TypeScript, on RGB images resized
// to shortest edge 256 and centre-cropped to 224. Medians of --runs runs (default 9), in ms; the
// native kernels are timed one by one through JEPA_RESAMPLE_ISA. Run after `pnpm build`:
//   node packages/native/scripts/bench-resample.mjs [--runs N]
import { performance } from 'node:perf_hooks';
import { cropOffset, normalizationTables, preprocessImage, resizeAndCropU8, resizedSize } from '@jepa/preprocess';
import { resampleKernels, resampleNormalizeSync, resampleU8Sync } from '../dist/index.js';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 9;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');

function median(fn, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

function randomImage(width, height, seed) {
  const data = new Uint8Array(width * height * 3);
  const words = new Uint32Array(data.buffer, 0, Math.floor(data.length / 4));
  let s = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    words[i] = s;
  }
  return { width, height, data };
}

function same(a, b) {
  return (
    a.length === b.length &&
    Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0
  );
}

const kernels = resampleKernels();
const saved = process.env.JEPA_RESAMPLE_ISA;
const rows = [];
for (const [w, h] of [
  [4000, 3000],
  [1024, 768],
]) {
  const img = randomImage(w, h, w * h);
  for (const filter of ['bicubic', 'bilinear']) {
    const recipe = {
      mode: 'shortest_edge',
      resizeShort: 256,
      cropSize: 224,
      cropRounding: 'hf',
      mean: [0.485, 0.456, 0.406],
      std: [0.229, 0.224, 0.225],
      resample: filter,
      rescaleFactor: 1 / 255,
    };
    const size = resizedSize(w, h, recipe);
    const crop = { left: cropOffset(size.width, 224, 'hf'), top: cropOffset(size.height, 224, 'hf'), width: 224, height: 224 };
    const job = { src: img.data, width: w, height: h, channels: 3, outWidth: size.width, outHeight: size.height, filter, crop };
    const tables = new Float32Array(768);
    for (const [c, t] of normalizationTables(recipe).entries()) tables.set(t, c * 256);
    const planes = new Float32Array(3 * 224 * 224);

    const wantU8 = resizeAndCropU8(img, recipe).data;
    const wantF32 = preprocessImage(img, recipe).data;
    const u8 = { mode: 'u8', ts: median(() => resizeAndCropU8(img, recipe), runs), native: {}, exact: true };
    const f32 = { mode: 'f32', ts: median(() => preprocessImage(img, recipe), runs), native: {}, exact: true };
    for (const isa of kernels) {
      process.env.JEPA_RESAMPLE_ISA = isa;
      u8.exact &&= same(resampleU8Sync(job), wantU8);
      resampleNormalizeSync(job, tables, planes, 224 * 224, 0);
      f32.exact &&= same(planes, wantF32);
      u8.native[isa] = median(() => resampleU8Sync(job), runs);
      f32.native[isa] = median(() => resampleNormalizeSync(job, tables, planes, 224 * 224, 0), runs);
    }
    for (const r of [u8, f32]) rows.push({ image: `${w}x${h}`, filter, ...r });
  }
}
if (saved === undefined) delete process.env.JEPA_RESAMPLE_ISA;
else process.env.JEPA_RESAMPLE_ISA = saved;

const ms = (v) => v.toFixed(v < 10 ? 2 : 1);
console.log(`median of ${runs} runs, ms; shortest edge 256 + centre crop 224; u8 = RGB bytes, f32 = normalised CHW planes\n`);
console.log(`| image | filter | out | resize.ts | ${kernels.map((k) => `native ${k}`).join(' | ')} | speed-up | exact |`);
console.log(`|---|---|---|---:|${kernels.map(() => '---:').join('|')}|---:|---|`);
for (const r of rows) {
  const best = Math.min(...kernels.map((k) => r.native[k]));
  console.log(
    `| ${r.image} | ${r.filter} | ${r.mode} | ${ms(r.ts)} | ${kernels.map((k) => ms(r.native[k])).join(' | ')} | ${(r.ts / best).toFixed(0)}x | ${r.exact ? 'yes' : 'NO'} |`,
  );
}
if (rows.some((r) => !r.exact)) process.exitCode = 1;
