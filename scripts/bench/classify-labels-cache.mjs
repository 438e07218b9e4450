#!/usr/bin/env node
// The same zero-shot request sent again: `jepa serve -m DINOTXT.gguf`, then POST /v1/classify with one photo and
// 100 labels, four times in a row; prints each request's milliseconds and jepa_text_vectors_total, which says how
// many label vectors came from the model's text cache and how many ran the text tower. The first request also
// builds the encoder's first graph.
//   node scripts/bench/classify-labels-cache.mjs DINOTXT.gguf [PHOTO]
//   e.g. node scripts/bench/classify-labels-cache.mjs tmp/bench-models/dinotxt-vitl16-q8_0.gguf   (jepa-bench zero-shot forges it)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [model, photo = 'fixtures/preprocess/sample.jpg'] = process.argv.slice(2);
if (!model) throw new Error('usage: classify-labels-cache.mjs DINOTXT.gguf [PHOTO]');
const child = spawn(process.execPath, ['apps/cli/dist/main.js', 'serve', '-m', model, '--port', '0', '-t', '2'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let err = '';
const url = await new Promise((done, fail) => {
  child.stderr.on('data', (d) => {
    err += d;
    const m = /ready: (http:\/\/\S+)/.exec(err);
    if (m) done(m[1]);
  });
  child.once('exit', (code) => fail(new Error(`jepa serve exited (${code}):\n${err}`)));
});
try {
  const body = JSON.stringify({
    input: [{ image: readFileSync(photo).toString('base64') }],
    labels: Array.from({ length: 100 }, (_, i) => `a photo of thing number ${i}`),
    top_k: 3,
  });
  const ms = [];
  for (let i = 0; i < 4; i++) {
    const t = performance.now();
    const r = await fetch(`${url}/v1/classify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (r.status !== 200) throw new Error(`POST /v1/classify: ${r.status} ${await r.text()}`);
    await r.json();
    ms.push(Math.round(performance.now() - t));
  }
  const metrics = await (await fetch(`${url}/metrics`)).text();
  console.log(`ms per request: ${ms.join(', ')}`);
  console.log(
    metrics
      .split('\n')
      .filter((l) => l.startsWith('jepa_text_vectors_total'))
      .join('\n'),
  );
} finally {
  child.kill('SIGTERM');
}
