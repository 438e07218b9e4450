// The transformers.js peer of jepa-bench pipeline, run in a child process of its own (its own
// onnxruntime-node, the one transformers.js installs next to itself). One JSON argument (inline, or
// @file) and one JSON line out:
//
//   node scripts/bench/tfjs-embed.mjs '{"tfjsDir":"tmp/tfjs","modelDir":"tmp/tfjs/vit-b16","dtype":"q8",
//     "files":["a.jpg",...],"threads":2,"warmup":2}'
//   -> {"dtype":"q8","images":N,"seconds":s,"imagesPerSecond":r,"version":"4.3.1","outputDims":[1,197,768],...}
//
// It does what a user's loop does: pipeline('image-feature-extraction', modelDir, { dtype, device: 'cpu',
// session_options }) and then `await extractor(file)` for one file after another. The first `warmup`
// files are the warm-up; the clock runs from the first file after them to the end of the last, so
// `images` is files.length - warmup. Only local files: remote models are off.
//
// With "check": true it instead runs onnx/model.onnx and onnx/model_quantized.onnx through that same
// onnxruntime-node on a seeded 224x224 input (batch 1 and 2) and prints the worst token cosine; with
// "referenceOnnx" (export_vit_b16.py's vit_b16_tokens.onnx) also fp32's against that graph.
import fs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

function readArgs() {
  const raw = process.argv[2];
  if (!raw) throw new Error('usage: tfjs-embed.mjs JSON | @file.json');
  return JSON.parse(raw.startsWith('@') ? fs.readFileSync(raw.slice(1), 'utf8') : raw);
}

function transformersEntry(tfjsDir) {
  const pkgDir = join(tfjsDir, 'node_modules', '@huggingface', 'transformers');
  const pkg = JSON.parse(fs.readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const entry = pkg.exports?.node?.import?.default ?? pkg.exports?.node?.import;
  if (typeof entry !== 'string') throw new Error(`cannot find the node ESM entry of ${pkgDir}`);
  return { url: pathToFileURL(join(pkgDir, entry)).href, version: pkg.version };
}

/** The seeded input of jepa-bench peers (same LCG), batch copies of it. */
function seededPixels(batch) {
  const one = 3 * 224 * 224;
  const data = new Float32Array(batch * one);
  let s = 12345;
  for (let i = 0; i < one; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 4 - 2;
  }
  for (let b = 1; b < batch; b++) data.copyWithin(b * one, 0, one);
  return data;
}

function worstTokenCosine(a, b, dim) {
  let worst = 1;
  for (let t = 0; t < a.length / dim; t++) {
    let ab = 0,
      aa = 0,
      bb = 0;
    for (let i = t * dim; i < (t + 1) * dim; i++) {
      ab += a[i] * b[i];
      aa += a[i] * a[i];
      bb += b[i] * b[i];
    }
    worst = Math.min(worst, ab / Math.sqrt(aa * bb));
  }
  return worst;
}

async function check(args) {
  const require = createRequire(join(resolve(args.tfjsDir), 'node_modules', '@huggingface', 'transformers', 'package.json'));
  const ort = require('onnxruntime-node');
  const opts = { intraOpNumThreads: args.threads ?? 2, interOpNumThreads: 1 };
  const out = { check: true, ortVersion: require('onnxruntime-node/package.json').version };
  const tokens = {};
  for (const [key, file] of [
    ['fp32', 'model.onnx'],
    ['q8', 'model_quantized.onnx'],
  ]) {
    const session = await ort.InferenceSession.create(join(args.modelDir, 'onnx', file), opts);
    for (const batch of [1, 2]) {
      const feeds = { pixel_values: new ort.Tensor('float32', seededPixels(batch), [batch, 3, 224, 224]) };
      const r = (await session.run(feeds)).last_hidden_state;
      tokens[`${key}-${batch}`] = r.data;
      out[`${key}Dims${batch}`] = r.dims;
    }
    await session.release();
  }
  if (args.referenceOnnx) {
    // export_vit_b16.py's graph of the same weights (input pixels, output tokens)
    const session = await ort.InferenceSession.create(args.referenceOnnx, opts);
    const r = await session.run({ pixels: new ort.Tensor('float32', seededPixels(1), [1, 3, 224, 224]) });
    out.minTokenCosFp32VsReference = worstTokenCosine(tokens['fp32-1'], r.tokens.data, 768);
    await session.release();
  }
  const one = 197 * 768;
  out.minTokenCosQ8VsFp32 = worstTokenCosine(tokens['q8-1'], tokens['fp32-1'], 768);
  out.minTokenCosBatch2VsBatch1 = Math.min(
    worstTokenCosine(tokens['fp32-2'].subarray(one), tokens['fp32-1'], 768),
    worstTokenCosine(tokens['q8-2'].subarray(one), tokens['q8-1'], 768),
  );
  return out;
}

async function embed(args) {
  const modelDir = resolve(args.modelDir);
  // note every .onnx file transformers.js looks at, to show which one a dtype loads
  const onnxSeen = new Set();
  const existsSync = fs.existsSync;
  fs.existsSync = (p) => {
    const r = existsSync(p);
    if (r && typeof p === 'string' && p.endsWith('.onnx')) onnxSeen.add(p);
    return r;
  };
  const { url, version } = transformersEntry(resolve(args.tfjsDir));
  const t = await import(url);
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = `${dirname(modelDir)}/`;
  t.env.useFSCache = false;
  const files = args.files;
  const warmup = args.warmup ?? 0;
  if (files.length <= warmup) throw new Error(`${files.length} files leave none after ${warmup} warm-up`);
  const t0 = performance.now();
  const extractor = await t.pipeline('image-feature-extraction', basename(modelDir), {
    dtype: args.dtype,
    device: 'cpu',
    session_options: { intraOpNumThreads: args.threads, interOpNumThreads: 1 },
  });
  const loadS = (performance.now() - t0) / 1000;
  // the ViT-B/16 peer's tokens; another model folder names its own ("outputDims": [1, 201, 768] for DINOv3 ViT-B/16)
  const expectedDims = args.outputDims ?? [1, 197, 768];
  let dims = null;
  let start = 0;
  const perImageMs = [];
  for (let i = 0; i < files.length; i++) {
    if (i === warmup) start = performance.now();
    const t1 = performance.now();
    const out = await extractor(files[i]);
    if (i >= warmup) perImageMs.push(performance.now() - t1);
    dims = out.dims;
    if (JSON.stringify(dims) !== JSON.stringify(expectedDims)) {
      throw new Error(`${files[i]}: output dims ${JSON.stringify(dims)}, expected ${JSON.stringify(expectedDims)}`);
    }
    if (typeof out.dispose === 'function') out.dispose();
  }
  const seconds = (performance.now() - start) / 1000;
  const images = files.length - warmup;
  const session = extractor.model?.sessions?.model;
  fs.existsSync = existsSync;
  const result = {
    dtype: args.dtype,
    images,
    seconds,
    imagesPerSecond: images / seconds,
    version,
    outputDims: dims,
    sessionDtype: session?.config?.dtype ?? null,
    onnxFiles: [...onnxSeen].map((p) => p.slice(modelDir.length + 1)),
    loadSeconds: loadS,
    medianMs: perImageMs.slice().sort((a, b) => a - b)[Math.floor(perImageMs.length / 2)],
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  };
  await extractor.dispose?.();
  return result;
}

const args = readArgs();
const result = args.check ? await check(args) : await embed(args);
process.stdout.write(`${JSON.stringify(result)}\n`);
