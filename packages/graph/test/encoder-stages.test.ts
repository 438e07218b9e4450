// encodeStages (jepa embed --dump-dir) and the `layers` truncation (--layers), held against each
// other and against encode(): the final stage is encode()'s bits, a truncation to N blocks is the
// final norm of block N-1's stage.
import { forgeModel, tensorNames, type Family } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { Model, compareTokens, judge, policyRow, type EncoderInput, type EncoderStage } from '../src/index.js';

function input(frames: number, size: number): EncoderInput {
  const shape = frames === 1 ? [1, 3, size, size] : [1, 3, frames, size, size];
  const n = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + 1) * 1.5), shape };
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** LayerNorm of every [dim] row in float64, with the model's weights. */
function hostLayerNorm(model: Model, prefix: string, stage: EncoderStage, eps: number): Float32Array {
  const read = (name: string) => {
    const t = model.weights.get(`${prefix}.${name}`);
    return t.get(new Float32Array(t.nbytes / 4));
  };
  const [w, b] = [read('weight'), read('bias')];
  const { dim, tokens, data } = stage;
  const out = new Float32Array(data.length);
  for (let t = 0; t < tokens; t++) {
    const row = data.subarray(t * dim, (t + 1) * dim);
    let mean = 0;
    for (const v of row) mean += v;
    mean /= dim;
    let variance = 0;
    for (const v of row) variance += (v - mean) ** 2;
    variance /= dim;
    for (let d = 0; d < dim; d++) out[t * dim + d] = ((row[d]! - mean) / Math.sqrt(variance + eps)) * w[d]! + b[d]!;
  }
  return out;
}

const CASES: [Family, number][] = [
  ['hfvit', 1], // CLS and a learned position table
  ['vjepa2', 4], // RoPE, no prefix tokens
];

describe('encodeStages', () => {
  for (const [family, frames] of CASES) {
    it(`${family}: 2 + n_layer stages; the last is encode()'s bits, the first is not`, async () => {
      await using model = await Model.load(forgeModel(family).path, { threads: 2 });
      const ctx = model.createContext();
      const x = input(frames, 8);
      const stages = await ctx.encodeStages(x);
      const e = model.spec.enc;
      expect(stages.map((s) => s.name)).toEqual(['patch-embed', ...Array.from({ length: e.nLayer }, (_, l) => `block-0${l}`), 'final-norm']);
      const out = await ctx.encode(x);
      for (const s of stages) expect([s.tokens, s.dim]).toEqual([out.nTokens, out.dim]);
      expect(bits(stages.at(-1)!.data).equals(bits(out.tokens))).toBe(true);
      expect(bits(stages[0]!.data).equals(bits(out.tokens))).toBe(false);
      // the stage graph leaves encode()'s own graph as it was
      expect(bits((await ctx.encode(x)).tokens).equals(bits(out.tokens))).toBe(true);
    });
  }

  it('refuses a batch of two and hierarchy mode', async () => {
    await using model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const two = { data: new Float32Array(2 * 3 * 8 * 8), shape: [2, 3, 8, 8] };
    await expect(model.createContext().encodeStages(two)).rejects.toThrow(/a stage dump takes one item, not 2/);
    await using v21 = await Model.load(forgeModel('vjepa2_1').path, { threads: 2 });
    await expect(v21.createContext({ output: 'hierarchy' }).encodeStages(input(4, 8))).rejects.toThrow(/not hierarchy mode/);
  });
});

describe('layers', () => {
  it('layers = n_layer is the full encoder; layers = N is the final norm of block N-1, not of block N', async () => {
    await using model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const e = model.spec.enc;
    expect(e.nLayer).toBeGreaterThan(1);
    const x = input(1, 8);
    const full = model.createContext();
    const stages = await full.encodeStages(x);
    const all = await model.createContext({ layers: e.nLayer }).encode(x);
    expect(bits(all.tokens).equals(bits((await full.encode(x)).tokens))).toBe(true);

    const n = 1;
    const short = model.createContext({ layers: n });
    const truncated = await short.encode(x);
    const shortStages = await short.encodeStages(x);
    expect(shortStages.length).toBe(2 + n);
    // the blocks a truncation keeps are the same bits as the full encoder's
    expect(bits(shortStages[n]!.data).equals(bits(stages[n]!.data))).toBe(true);
    const row = policyRow('cpu', 'image', 'f32');
    const normOf = (l: number) => hostLayerNorm(model, tensorNames.encNorm, stages[1 + l]!, e.lnEps);
    const verdict = judge(row, compareTokens(truncated.tokens, normOf(n - 1), e.embedDim));
    expect(verdict.pass, verdict.summary).toBe(true);
    // negative control: the next block's norm is another output
    expect(judge(row, compareTokens(truncated.tokens, normOf(n), e.embedDim)).pass).toBe(false);
  });

  it('refuses 0 and n_layer + 1, naming the bounds', async () => {
    await using model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const n = model.spec.enc.nLayer;
    expect(() => model.createContext({ layers: 0 })).toThrow(new RegExp(`layers 0 is outside .*1\\.\\.${n} encoder blocks`));
    expect(() => model.createContext({ layers: n + 1 })).toThrow(/is outside/);
  });
});
