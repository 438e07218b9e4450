// dino.txt through the built CLI: convert (with its refusals), embed --text / --texts (one row per text, in order: the
// float64 reference's vectors), an image's default embedding (the aligned vector), and zero-shot classify whose
// --logits are exp(logit_scale)·cos of the CLI's own image and text vectors, one column per label in the given order.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { DINOTXT_FILES, manifestOf, npy, REFERENCE, runCli, seededPng } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-cli-dinotxt-'));
const model = join(work, 'dinotxt.gguf');
const plain = join(work, 'dinov3.gguf');
const texts = (manifestOf('dinotxt') as unknown as { texts: string[] }).texts;
const env = { env: { JEPA_DEVICE: 'cpu' } };
const { headAndText, backbone, vocab, textHeads } = DINOTXT_FILES;

function jepa(...args: string[]) {
  return runCli(args[0] === 'convert' || args[0] === 'info' ? args : [...args, '--threads', '1'], env);
}

function ok(...args: string[]) {
  const r = jepa(...args);
  expect(r.status, r.stderr).toBe(0);
  return r;
}

function rows(path: string): { values: Float32Array; shape: number[] } {
  const a = readNpy(path);
  return { values: a.data as Float32Array, shape: [...a.shape] };
}

const verdict = (actual: Float32Array, golden: string, width: number) =>
  judge(policyRow('cpu', 'image', 'f32'), compareTokens(actual, npy('dinotxt', golden).data, width));

let images: string[] = [];

beforeAll(() => {
  images = [1, 2].map((seed) => {
    const path = join(work, `img${seed}.png`);
    writeFileSync(path, seededPng(40, 32, seed));
    return path;
  });
  ok('convert', headAndText, '--backbone', backbone, '--vocab', vocab, '--text-heads', String(textHeads), '-o', model);
  ok('convert', backbone, '-o', plain);
});

describe('jepa with dino.txt', () => {
  it('convert refuses a dino.txt file without --backbone in one line', () => {
    const r = jepa('convert', headAndText, '--vocab', vocab, '-o', join(work, 'x.gguf'));
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim()).toMatch(/^jepa: .*dino\.txt's vision head and text encoder; give its DINOv3 backbone with --backbone BACKBONE\.pth$/);
  });

  it('info names the model after the dino.txt file and shows its text side', () => {
    const r = ok('info', model);
    expect(r.stdout).toMatch(/^name: +dinov3_vittiny16_dinotxt_vision_head_and_text_encoder-seeded$/m);
    expect(r.stdout).toMatch(/^text: +dino\.txt: vision head 2 blocks .*vocabulary 642 \(128 merges\); vectors 64-d/m);
  });

  it('embed --text … --texts FILE gives one row per text, in order: the reference text vectors', () => {
    const file = join(work, 'texts.txt');
    writeFileSync(file, `${texts.slice(3).join('\n')}\n`);
    const out = join(work, 'texts.npy');
    ok('embed', '-m', model, '--text', texts[0]!, '--text', texts[1]!, '--text', texts[2]!, '--texts', file, '-o', out);
    const { values, shape } = rows(out);
    const width = loadModelSpec(model).text!.outDim;
    expect(shape).toEqual([texts.length, width]);
    expect(verdict(values, 'text_vectors.npy', width).pass).toBe(true);
    const index = readFileSync(`${out}.index.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: string });
    expect(index.map((e) => e.input)).toEqual(texts);
  });

  it("an image's embedding is the aligned vector by default", () => {
    const out = join(work, 'image.npy');
    ok('embed', '-m', model, '--input-npy', join(REFERENCE, 'dinov3_meta', 'input.npy'), '-o', out);
    const width = loadModelSpec(model).text!.outDim;
    const { values, shape } = rows(out);
    expect(shape).toEqual([1, width]);
    const golden = npy('dinotxt', 'image_vectors.npy').data.subarray(0, width);
    expect(judge(policyRow('cpu', 'image', 'f32'), compareTokens(values, golden, width)).pass).toBe(true);
  });

  it('classify --label … --labels FILE: --logits are exp(logit_scale)·cos per label in order; top-k by softmax', () => {
    const labels = ['a dog', 'a cat', 'a red car at night', 'x'];
    const labelFile = join(work, 'labels.txt');
    writeFileSync(labelFile, `${labels.slice(2).join('\n')}\n`);
    const logits = join(work, 'logits.npy');
    const r = ok(
      'classify',
      '-m',
      model,
      '--label',
      labels[0]!,
      '--label',
      labels[1]!,
      '--labels',
      labelFile,
      '-k',
      '3',
      '--json',
      '--logits',
      logits,
      ...images,
    );
    const top = JSON.parse(r.stdout) as { input: string; top: { label: string; index: number; prob: number; logit: number }[] }[];
    // the scores, independently: the CLI's own vectors, cosine in double precision
    const imgOut = join(work, 'imgs.npy');
    const txtOut = join(work, 'labels.npy');
    ok('embed', '-m', model, ...images, '-o', imgOut);
    ok('embed', '-m', model, ...labels.flatMap((l) => ['--text', l]), '-o', txtOut);
    const img = rows(imgOut);
    const txt = rows(txtOut);
    const width = img.shape[1]!;
    const scale = Math.exp(loadModelSpec(model).text!.logitScale);
    const cos = (a: Float32Array, b: Float32Array) => {
      let [ab, aa, bb] = [0, 0, 0];
      for (let i = 0; i < a.length; i++) [ab, aa, bb] = [ab + a[i]! * b[i]!, aa + a[i]! ** 2, bb + b[i]! ** 2];
      return ab / Math.sqrt(aa * bb);
    };
    const got = rows(logits);
    expect(got.shape).toEqual([images.length, labels.length]);
    for (let i = 0; i < images.length; i++) {
      const expected = labels.map(
        (_, j) => scale * cos(img.values.subarray(i * width, (i + 1) * width), txt.values.subarray(j * width, (j + 1) * width)),
      );
      for (const [j, s] of expected.entries()) expect(Math.abs(got.values[i * labels.length + j]! - s)).toBeLessThan(1e-4 * Math.max(1, Math.abs(s)));
      const order = expected.map((s, j) => [s, j] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      expect(top[i]!.input).toBe(images[i]);
      expect(top[i]!.top.map((c) => c.index)).toEqual(order.slice(0, 3).map(([, j]) => j));
      expect(top[i]!.top.map((c) => c.label)).toEqual(order.slice(0, 3).map(([, j]) => labels[j]));
      const z = expected.reduce((a, s) => a + Math.exp(s - order[0]![0]), 0);
      expect(top[i]!.top[0]!.prob).toBeCloseTo(1 / z, 5);
    }
  });

  it('a model without a text side refuses --text and --label in one line', () => {
    for (const args of [
      ['embed', '-m', plain, '--text', 'a dog'],
      ['classify', '-m', plain, '--label', 'a dog', images[0]!],
    ]) {
      const r = jepa(...args);
      expect(r.status).not.toBe(0);
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^jepa: model: .* \(dinov3\) has no text tower; text needs a dino\.txt model$/);
    }
  });
});
