// V-JEPA 2.1 g/G-style predictor (n_output_distillation 4) end to end: the fixture .pt converted here,
// the encoder in hierarchy mode (4 levels concatenated) and the predictor judged against the float64
// goldens of fixtures/reference/vjepa2_1_hier. Controls that must fail: the predictor fed one level
// (the last, repeated 4x) instead of four, and the hierarchy of the checkpoint's other encoder entry.
import { join } from 'node:path';
import { loadModelSpec, tensorNames } from '@jepa/gguf';
import { compareTokens, judge, Model, policyRow, predictorEncoderOutput, predictorTokens, type EncodeOutput } from '@jepa/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint } from '../src/index.js';
import { expectConvertError, tempDir } from './fixtures.js';
import { manifestOf, npy, REFERENCE } from '@jepa/testing';

const FOLDER = 'vjepa2_1_hier';
const m = manifestOf(FOLDER) as unknown as {
  checkpoint: string[];
  convert_overrides: { img_size: number; pred_n_head: number };
  hparams: { n_head: number; embed_dim: number; hier_layers: number[] };
  context_ids_values: number[];
  target_ids_values: number[];
  image_case: { input: string; context_ids_values: number[]; target_ids_values: number[] };
};
const row = policyRow('cpu', 'video', 'f32');
const src = join(REFERENCE, FOLDER, m.checkpoint[0]!);
const options = { nHead: m.hparams.n_head, predNHead: m.convert_overrides.pred_n_head, imgSize: m.convert_overrides.img_size };
const D = m.hparams.embed_dim;
const levels = m.hparams.hier_layers.length;
let model: Model;
let out: string;

beforeAll(async () => {
  out = join(tempDir(), 'hier.gguf');
  await convertCheckpoint(src, out, options);
  model = await Model.load(out, { threads: 2 });
});

afterAll(() => model?.dispose());

async function encode(m: Model, output: 'final' | 'hierarchy', input = 'input.npy'): Promise<EncodeOutput> {
  const ctx = m.createContext({ output });
  try {
    return await ctx.encode(npy(FOLDER, input));
  } finally {
    ctx.dispose();
  }
}

async function predict(tokens: Float32Array, dim: number) {
  const ctx = model.createPredictorContext();
  try {
    return await ctx.predict({ tokens, dim, contextIds: m.context_ids_values, targetIds: m.target_ids_values, returnContext: true });
  } finally {
    ctx.dispose();
  }
}

const verdict = (got: Float32Array, file: string, dim: number) => judge(row, compareTokens(got, npy(FOLDER, file).data, dim));

describe('V-JEPA 2.1 hierarchy predictor (vjepa2_1_hier)', () => {
  it('converts target_encoder with all 4 hierarchy norms and the MLP-embed predictor reading 4·D', async () => {
    const s = await convertCheckpoint(src, join(tempDir(), 'again.gguf'), options);
    expect([s.mapping, s.sourceEntry]).toEqual(['meta-vjepa2_1', 'target_encoder']);
    const spec = loadModelSpec(out);
    expect(spec.enc.hierLayers).toEqual(m.hparams.hier_layers);
    for (let k = 0; k < levels; k++) expect(spec.tensors.has(`${tensorNames.encHierNorm(k)}.weight`)).toBe(true);
    expect(spec.pred).toMatchObject({
      kind: 'masked',
      embedMlp: true,
      embedInDim: levels * D,
      outDim: levels * D,
      projContext: true,
      nMaskTokens: 8,
    });
    expect(predictorEncoderOutput(spec)).toBe('hierarchy');
  });

  it('the encoder: final output and the hierarchy concat pass the cpu/video/f32 row', async () => {
    const final = await encode(model, 'final');
    const f = verdict(final.tokens, 'last_hidden_state.npy', D);
    console.log(`vjepa2_1_hier final ${f.summary}`);
    expect(f.failures).toEqual([]);
    const hier = await encode(model, 'hierarchy');
    expect(hier.dim).toBe(levels * D);
    const h = verdict(hier.tokens, 'hierarchy.npy', levels * D);
    console.log(`vjepa2_1_hier hierarchy ${h.summary}`);
    expect(h.failures).toEqual([]);
    // the last level is the final output, bit for bit
    const last = new Float32Array(final.tokens.length);
    for (let t = 0; t < final.nTokens; t++) last.set(hier.tokens.subarray((t * levels + levels - 1) * D, (t * levels + levels) * D), t * D);
    expect(Buffer.from(last.buffer).equals(Buffer.from(final.tokens.buffer))).toBe(true);
  });

  it('encoder hierarchy -> predictor: targets and projected context pass the cpu/video/f32 row', async () => {
    const hier = await encode(model, 'hierarchy');
    const p = await predict(predictorTokens(hier).tokens, hier.dim);
    const t = verdict(p.targets, 'targets.npy', p.outDim);
    const c = verdict(p.context!, 'context.npy', p.outDim);
    console.log(`vjepa2_1_hier targets ${t.summary}; context ${c.summary}`);
    expect(t.failures).toEqual([]);
    expect(c.failures).toEqual([]);
  });

  it('an f16 file: hierarchy and targets pass the cpu/video/f16 row', async () => {
    const path = join(tempDir(), 'hier-f16.gguf');
    await convertCheckpoint(src, path, { ...options, dtype: 'f16' });
    const half = await Model.load(path, { threads: 2 });
    try {
      const f16 = policyRow('cpu', 'video', 'f16');
      const hier = await encode(half, 'hierarchy');
      const h = judge(f16, compareTokens(hier.tokens, npy(FOLDER, 'hierarchy.npy').data, levels * D));
      const ctx = half.createPredictorContext();
      const p = await ctx.predict({ ...predictorTokens(hier), contextIds: m.context_ids_values, targetIds: m.target_ids_values });
      ctx.dispose();
      const t = judge(f16, compareTokens(p.targets, npy(FOLDER, 'targets.npy').data, p.outDim));
      console.log(`vjepa2_1_hier f16: hierarchy ${h.summary}; targets ${t.summary}`);
      expect([h.failures, t.failures]).toEqual([[], []]);
    } finally {
      half.dispose();
    }
  });

  it('image case (1-frame clip, image tokenizer and modality vectors): hierarchy, targets and context pass', async () => {
    const c = m.image_case;
    const hier = await encode(model, 'hierarchy', c.input);
    const h = verdict(hier.tokens, 'hierarchy_image.npy', levels * D);
    const ctx = model.createPredictorContext();
    const p = await ctx.predict({
      ...predictorTokens(hier),
      contextIds: c.context_ids_values,
      targetIds: c.target_ids_values,
      modality: 'image',
      returnContext: true,
    });
    ctx.dispose();
    const t = verdict(p.targets, 'targets_image.npy', p.outDim);
    const cx = verdict(p.context!, 'context_image.npy', p.outDim);
    console.log(`vjepa2_1_hier image: hierarchy ${h.summary}; targets ${t.summary}; context ${cx.summary}`);
    expect([h.failures, t.failures, cx.failures]).toEqual([[], [], []]);
  });

  it('negative control: one level (the last, repeated 4x) instead of four fails; it matches its own reference', async () => {
    const final = await encode(model, 'final');
    const repeated = new Float32Array(final.tokens.length * levels);
    for (let t = 0; t < final.nTokens; t++)
      for (let k = 0; k < levels; k++) repeated.set(final.tokens.subarray(t * D, (t + 1) * D), (t * levels + k) * D);
    const p = await predict(repeated, levels * D);
    const wrong = verdict(p.targets, 'targets.npy', p.outDim);
    console.log(`vjepa2_1_hier control one level: ${wrong.summary}`);
    expect(wrong.pass).toBe(false);
    expect(verdict(p.targets, 'targets_one_level.npy', p.outDim).failures).toEqual([]);
  });

  it("negative control: the hierarchy of the checkpoint's `encoder` entry fails", async () => {
    const other = join(tempDir(), 'student.gguf');
    await convertCheckpoint(src, other, { ...options, entry: 'encoder' });
    const student = await Model.load(other, { threads: 2 });
    try {
      const v = verdict((await encode(student, 'hierarchy')).tokens, 'hierarchy.npy', levels * D);
      console.log(`vjepa2_1_hier control entry 'encoder': ${v.summary}`);
      expect(v.pass).toBe(false);
    } finally {
      student.dispose();
    }
  });

  it('refuses a predictor reading 4 levels over an encoder depth Meta defines no hierarchy layers for', async () => {
    // test/data/make_vjepa2_1_levels_fixture.py: depth 2, 4 norms_block, predictor_embed.0 over 4·D
    const bad = join(import.meta.dirname, 'data', 'meta-vjepa2_1-untabled-levels.pt');
    await expectConvertError(
      convertCheckpoint(bad, join(tempDir(), 'bad.gguf'), { nHead: 1, predNHead: 1, imgSize: 16 }),
      'CONVERT_BAD_CONFIG',
      /reads 64-wide tokens \(4 levels of 16\), but Meta's encoder defines no hierarchy layers for depth 2/,
    );
  });

  it('a context in hierarchy mode is refused on an encoder without hierarchy norms', async () => {
    const plain = await Model.load(join(REFERENCE, '..', 'reference-heads', 'vjepa2_predictor', 'model.gguf'), { threads: 1 });
    try {
      expect(() => plain.createContext({ output: 'hierarchy' })).toThrow(/no hierarchy norms/);
      expect(predictorEncoderOutput(plain.spec)).toBe('final');
    } finally {
      plain.dispose();
    }
  });
});
