// Structural properties of the encoder that need no reference: batching, concurrency, attention
// paths, the block-causal mask's causality, input refusals. Parity lives in the golden tests.
import { FAMILIES, forgeHparams, forgeModel, GgmlType, type Family } from '@jepa/gguf';
import { buildInfo } from '@jepa/native';
import { describe, expect, it } from 'vitest';
import { Model, runtimeFromEnv, timingsByOp, type EncoderInput } from '../src/index.js';

function clipInput(batch: number, frames: number, size: number, seed: number): EncoderInput {
  const shape = frames === 1 ? [batch, 3, size, size] : [batch, 3, frames, size, size];
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i * 0.37 + seed) * 1.5;
  return { data, shape };
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The forged model's trained frames: 1 for an image family, its clip length for a video one. */
const framesOf = (family: Family) => forgeHparams(family).enc.nFrames;

describe('encoder on forged models of every family', () => {
  for (const family of FAMILIES) {
    it(`${family}: runs, gives finite tokens of the right count, flash and naive agree`, async () => {
      const forged = forgeModel(family);
      const model = await Model.load(forged.path, { threads: 2 });
      const ctx = model.createContext();
      const naive = model.createContext({ noFlash: true });
      const input = clipInput(1, framesOf(family), 8, 1);
      const out = await ctx.encode(input);
      const e = model.spec.enc;
      const tubelet = family === 'vjepa2_1' || framesOf(family) === 1 ? (framesOf(family) === 1 ? 1 : e.tubeletSize) : e.tubeletSize;
      expect(out.nTokens).toBe(e.nCls + e.nReg + (framesOf(family) / tubelet) * 4);
      expect(out.dim).toBe(32);
      expect(out.tokens.every(Number.isFinite)).toBe(true);
      const ref = await naive.encode(input);
      let worst = 0;
      for (let i = 0; i < out.tokens.length; i++) worst = Math.max(worst, Math.abs(out.tokens[i]! - ref.tokens[i]!));
      expect(worst).toBeLessThan(1e-4);
      ctx.dispose();
      naive.dispose();
      model.dispose();
    });
  }
});

describe('batching and concurrency', () => {
  it('batched images are bit-identical to one item per graph', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const batched = model.createContext();
    const single = model.createContext({ maxBatch: 1 });
    const input = clipInput(5, 1, 8, 2);
    const a = await batched.encode(input);
    const b = await single.encode(input);
    expect(bits(a.tokens).equals(bits(b.tokens))).toBe(true);
    model.dispose();
  });

  it('profile() gives the bits of encode() and a time for every node, summed per op', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const ctx = model.createContext();
    const input = clipInput(3, 1, 8, 4);
    const encoded = await ctx.encode(input);
    const { output, nodes } = await ctx.profile(input);
    expect(bits(output.tokens).equals(bits(encoded.tokens))).toBe(true);
    expect(nodes.length).toBeGreaterThan(0);
    const byOp = timingsByOp(nodes);
    expect(byOp.reduce((a, r) => a + r.nodes, 0)).toBe(nodes.length);
    const matmul = buildInfo().panelKernelF32 ? 'PANEL_MUL_MAT f32' : 'MUL_MAT';
    expect(byOp.map((r) => r.op)).toEqual(expect.arrayContaining([matmul, 'FLASH_ATTN_EXT', 'LAYER_NORM_CPU'])); // 5 tokens: ggml's row kernel
    expect(byOp.map((r) => r.op)).not.toContain('tokens'); // the output's name, not its op
    expect(byOp.every((r, i) => i === 0 || byOp[i - 1]!.ms >= r.ms)).toBe(true);
    if (buildInfo().flashAttnCpu) {
      // 17 tokens: this engine's CPU flash kernel, with encode()'s bits
      const longer = clipInput(3, 1, 16, 4);
      const run = await ctx.profile(longer);
      expect(run.nodes.map((n) => n.op)).toContain('FLASH_ATTN_CPU');
      expect(bits(run.output.tokens).equals(bits((await ctx.encode(longer)).tokens))).toBe(true);
    }
    model.dispose();
  });

  it("the GELU after an 8-bit or bf16 weight takes the rational erf, after an f32 or f16 weight glibc's", async () => {
    // ggml's products (JEPA_PANEL=0), so the GELU is a node of its own and its name says which erf
    const runtime = runtimeFromEnv({ JEPA_PANEL: '0' });
    const geluOps = async (matmulType: number) => {
      const model = await Model.load(forgeModel('vjepa2', { matmulType }).path, { threads: 1, runtime });
      const { nodes } = await model.createContext().profile(clipInput(1, 4, 8, 4));
      model.dispose();
      return [...new Set(nodes.map((n) => n.op).filter((op) => op.startsWith('GELU')))];
    };
    expect(await geluOps(GgmlType.F32)).toEqual(['GELU_ERF_CPU']);
    expect(await geluOps(GgmlType.F16)).toEqual(['GELU_ERF_CPU']);
    expect(await geluOps(GgmlType.Q8_0)).toEqual(['GELU_ERF_CPU rational']);
    expect(await geluOps(GgmlType.BF16)).toEqual(['GELU_ERF_CPU rational']);
  });

  it('concurrent encodes on separate contexts equal serial ones, bit for bit', async () => {
    const model = await Model.load(forgeModel('vjepa2').path, { threads: 1 });
    const inputs = [1, 2, 3, 4].map((s) => clipInput(1, 4, 8, s));
    const serialCtx = model.createContext();
    const serial: Float32Array[] = [];
    for (const i of inputs) serial.push((await serialCtx.encode(i)).tokens);
    const contexts = inputs.map(() => model.createContext());
    const parallel = await Promise.all(inputs.map((i, k) => contexts[k]!.encode(i)));
    for (const [k, p] of parallel.entries()) expect(bits(p.tokens).equals(bits(serial[k]!))).toBe(true);
    model.dispose();
  });
});

describe('block-causal attention (LeVJEPA)', () => {
  it('earlier frames do not see later ones; without the mask they do', async () => {
    const masked = await Model.load(forgeModel('levjepa').path, { threads: 2 });
    const unmasked = await Model.load(forgeModel('levjepa', { edit: (h) => ({ ...h, enc: { ...h.enc, attnMode: 'full' } }) }).path, { threads: 2 });
    const a = clipInput(1, 4, 8, 3);
    const b = { data: Float32Array.from(a.data), shape: a.shape };
    // change only the last frame of every channel
    const plane = 8 * 8;
    for (let c = 0; c < 3; c++) for (let i = 0; i < plane; i++) b.data[(c * 4 + 3) * plane + i]! += 0.5;
    const firstFrame = (t: Float32Array) => t.subarray(32, 32 + 4 * 32); // after CLS, the 4 tokens of frame 0
    const ma = await masked.createContext().encode(a);
    const mb = await masked.createContext().encode(b);
    expect(bits(firstFrame(ma.tokens)).equals(bits(firstFrame(mb.tokens)))).toBe(true);
    expect(bits(ma.tokens.subarray(0, 32)).equals(bits(mb.tokens.subarray(0, 32)))).toBe(false); // CLS reads all
    const ua = await unmasked.createContext().encode(a);
    const ub = await unmasked.createContext().encode(b);
    expect(bits(firstFrame(ua.tokens)).equals(bits(firstFrame(ub.tokens)))).toBe(false);
    masked.dispose();
    unmasked.dispose();
  });
});

describe('input refusals', () => {
  it('names what is wrong with the input', async () => {
    const model = await Model.load(forgeModel('vjepa2').path, { threads: 1 });
    const ctx = model.createContext();
    await expect(ctx.encode({ data: new Float32Array(10), shape: [1, 3, 4, 8, 8] })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(ctx.encode(clipInput(1, 3, 8, 1))).rejects.toThrow(/3 frames are not a whole number of 2-frame tubelets/);
    await expect(ctx.encode({ data: new Float32Array(3 * 4 * 4), shape: [1, 1, 4, 4, 3] })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(() => model.createContext({ device: 'cuda:0' })).toThrow();
    model.dispose();
  });
});

describe('budget and precision policy', () => {
  it('shrinks the image batch to the graph budget, bit-identically, and refuses one item that cannot fit', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 1 });
    const input = clipInput(6, 1, 8, 4);
    const full = await model.createContext().encode(input);
    // one MiB holds a few of these items' activations, not six
    const small = { runtime: runtimeFromEnv({ JEPA_MAX_GRAPH_MIB: '1' }), threads: 1 };
    const budgeted = await Model.load(model.path, small);
    const shrunk = await budgeted.createContext().encode(input);
    expect(bits(shrunk.tokens).equals(bits(full.tokens))).toBe(true);
    const big = await Model.load(
      forgeModel('hfvit', { edit: (h) => ({ ...h, enc: { ...h.enc, imgSize: 64, gridSize: 16, nPatches: 256 } }) }).path,
      small,
    );
    await expect(big.createContext({ noFlash: true }).encode(clipInput(1, 1, 64, 1))).rejects.toMatchObject({ code: 'OVER_BUDGET' });
    await expect(big.createContext({ noFlash: true }).prepare([1, 3, 64, 64])).rejects.toMatchObject({ code: 'OVER_BUDGET' });
    await expect(big.createContext().prepare([2, 3, 64, 64])).resolves.toBeUndefined();
    big.dispose();
    budgeted.dispose();
    model.dispose();
  });

  it('picks F32 K/V for f32 files and F16 for f16 files, with overrides', async () => {
    const f32 = await Model.load(forgeModel('hfvit').path, { threads: 1 });
    const f16 = await Model.load(forgeModel('hfvit', { matmulType: 1, edit: (h) => ({ ...h, fileType: 1 }) }).path, { threads: 1 });
    expect(f32.createContext().kvType).toBe(0);
    expect(f16.createContext().kvType).toBe(1);
    expect(f16.createContext({ kv: 'f32' }).kvType).toBe(0);
    const forced = await Model.load(f32.path, { threads: 1, runtime: runtimeFromEnv({ JEPA_KV_F16: '1' }) });
    expect(forced.createContext().kvType).toBe(1);
    expect(forced.createContext({ kv: 'f32' }).kvType).toBe(0);
    forced.dispose();
    // F16 K/V really changes the arithmetic of an f32 model (and only a little)
    const input = clipInput(1, 1, 8, 5);
    const a = await f32.createContext().encode(input);
    const b = await f32.createContext({ kv: 'f16' }).encode(input);
    expect(bits(a.tokens).equals(bits(b.tokens))).toBe(false);
    let worst = 0;
    for (let i = 0; i < a.tokens.length; i++) worst = Math.max(worst, Math.abs(a.tokens[i]! - b.tokens[i]!));
    expect(worst).toBeLessThan(1e-2);
    f32.dispose();
    f16.dispose();
  });
});
