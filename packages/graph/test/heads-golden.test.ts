// The attentive classifiers against the float64 reference of fixtures/reference-heads/: the
// V-JEPA 2 pooler (3 self-attention blocks + cross-attention) and the V-JEPA v1 probe (depth 0).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE_HEADS, classifierLogits } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { EncodeOutput, Model, compareTokens, judge, policyRow, topK } from '../src/index.js';

const root = REFERENCE_HEADS;
const f32 = (dir: string, name: string) => readNpy(join(root, dir, `${name}.npy`)).data as Float32Array;

async function headCase(dir: string) {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'manifest.json'), 'utf8')) as { top: number[]; top_labels: string[] };
  const model = await Model.load(join(root, dir, 'model.gguf'), { threads: 2 });
  const tokens = f32(dir, 'tokens');
  const D = model.spec.enc.embedDim;
  const out = new EncodeOutput(tokens, 1, tokens.length / D, D, 0, 0);
  return { model, manifest, out, expected: f32(dir, 'logits') };
}

describe('attentive heads against the float64 reference', () => {
  for (const dir of ['vjepa2_pooler', 'vjepa_probe']) {
    for (const noFlash of [false, true]) {
      it(`${dir}${noFlash ? ' (naive attention)' : ''}: logits pass the cpu/image/f32 row, top-k agrees exactly`, async () => {
        const { model, manifest, out, expected } = await headCase(dir);
        const head = model.createHeadContext({ noFlash });
        const [result] = await head.classify(out, expected.length);
        const verdict = judge(policyRow('cpu', 'image', 'f32'), compareTokens(result!.logits, expected, expected.length));
        console.log(`${dir}${noFlash ? ' naive' : ''} logits ${verdict.summary}`);
        expect(verdict.pass).toBe(true);
        expect(result!.top.map((c) => c.index)).toEqual(manifest.top);
        expect(result!.top.map((c) => c.label)).toEqual(manifest.top_labels);
        const probSum = result!.probs.reduce((a, b) => a + b, 0);
        expect(Math.abs(probSum - 1)).toBeLessThan(1e-6);
        head.dispose();
        model.dispose();
      });
    }
  }

  it('negative control: the model with head.xattn.q.weight scaled by 1.01 fails the same bar', async () => {
    const path = join(root, 'vjepa2_pooler', 'model.gguf');
    const info = loadModelSpec(path).tensors.get('head.xattn.q.weight')!;
    const bytes = readFileSync(path);
    const w = new Float32Array(bytes.buffer, bytes.byteOffset + info.offset, info.shape[0]! * info.shape[1]!);
    for (let i = 0; i < w.length; i++) w[i] = w[i]! * 1.01;
    const perturbed = join(mkdtempSync(join(tmpdir(), 'jepa-head-')), 'perturbed.gguf');
    writeFileSync(perturbed, bytes);
    const model = await Model.load(perturbed, { threads: 2 });
    const { out, expected } = await headCase('vjepa2_pooler');
    const [logits] = await model.createHeadContext().logits(out);
    const verdict = judge(policyRow('cpu', 'image', 'f32'), compareTokens(logits!, expected, expected.length));
    console.log(`vjepa2_pooler control q ×1.01: ${verdict.summary}`);
    expect(verdict.pass).toBe(false);
    model.dispose();
  });

  it.each(['vjepa2_pooler', 'vjepa_probe'])(
    '%s: pooled() is the vector the classifier reads: head.cls applied to it in the test gives the golden logits; the token mean does not',
    async (dir) => {
      const { model, out, expected } = await headCase(dir);
      const path = join(root, dir, 'model.gguf');
      const tensors = loadModelSpec(path).tensors;
      const head = model.createHeadContext();
      const [pooled] = await head.pooled(out);
      expect(pooled!.length).toBe(out.dim);
      const rel = (logits: Float64Array) =>
        logits.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i]!)), 0) / expected.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      expect(rel(classifierLogits(path, tensors, pooled!))).toBeLessThan(1e-5);
      // negative control: the patch-token mean, the pooling the head replaces
      expect(rel(classifierLogits(path, tensors, out.pool('mean')))).toBeGreaterThan(1e-2);
      // and the logits of the same run agree with the pooled vector's
      const [logits] = await head.logits(out);
      expect(rel(Float64Array.from(logits!))).toBeLessThan(1e-5);
      model.dispose();
    },
  );

  it('batched items equal one item at a time, bit for bit; top-k orders ties by index', async () => {
    const { model, out } = await headCase('vjepa_probe');
    const n = out.nTokens * out.dim;
    const two = new Float32Array(2 * n);
    two.set(out.tokens);
    two.set(
      out.tokens.map((v) => -v),
      n,
    );
    const head = model.createHeadContext();
    const both = await head.logits(new EncodeOutput(two, 2, out.nTokens, out.dim, 0, 0));
    const first = await head.logits(out);
    expect(Buffer.from(both[0]!.buffer).equals(Buffer.from(first[0]!.buffer))).toBe(true);
    expect(topK([1, 3, 3, 0], 3)).toEqual([1, 2, 0]);
    model.dispose();
  });

  it('refuses tokens of the wrong width and a model without a head', async () => {
    const { model } = await headCase('vjepa2_pooler');
    const head = model.createHeadContext();
    await expect(head.logits(new EncodeOutput(new Float32Array(3 * 8), 1, 3, 8, 0, 0))).rejects.toMatchObject({ code: 'BAD_INPUT' });
    model.dispose();
    const bare = await Model.load(join(root, 'vjepa2_predictor', 'model.gguf'), { threads: 1 });
    expect(() => bare.createHeadContext()).toThrow(/has no classifier head/);
    bare.dispose();
  });
});
