// The f32 panel kernel of this CPU level (AVX-512, or AVX2 + FMA under JEPA_CPU=avx2) against a float64 product and ggml's own mul_mat, and for
// independence from how tokens are tiled, chunked and split between threads.
import { describe, expect, it } from 'vitest';
import { buildInfo, createContext, openBackend, panelBytes, panelPack, type Backend, type Tensor } from '../src/index.js';
import { F16, F32, cpu, run, toF16, uniform, relMax } from './helpers.js';

const I8 = 24;

/** A `type` weight [k, rows] holding `data` in host memory, and its panel form. */
function packInto(type: number, rows: number, k: number, data: Float32Array | Uint16Array): { w: Tensor; panel: Tensor } {
  const ctx = createContext(4);
  const w = ctx.newTensor(type, [k, rows]);
  const panel = ctx.newTensor(I8, [panelBytes(type, rows, k)]);
  ctx.allocate(cpu());
  w.set(data);
  panelPack(w, panel);
  return { w, panel };
}

function packed(rows: number, k: number, seed: number): { w: Tensor; panel: Tensor; values: Float32Array } {
  const values = uniform(rows * k, seed);
  return { ...packInto(F32, rows, k, values), values };
}

function exact(values: Float32Array, rows: number, k: number, x: Float32Array, tokens: number): Float64Array {
  const out = new Float64Array(rows * tokens);
  for (let m = 0; m < tokens; m++)
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let j = 0; j < k; j++) s += values[r * k + j]! * x[m * k + j]!;
      out[m * rows + r] = s;
    }
  return out;
}

/** panelMulMat (and ggml's mul_mat) of `panel` over `tokens` rows of x on `backend`. */
async function multiply(panel: Tensor, w: Tensor, rows: number, k: number, x: Float32Array, tokens: number, backend: Backend = cpu(), type = F32) {
  const ctx = createContext(8);
  const xt = ctx.newTensor(F32, [k, tokens]);
  xt.setInput();
  const outs = [ctx.panelMulMat(panel, xt, rows, type), ctx.mulMat(w, xt)];
  for (const o of outs) o.setOutput();
  const graph = ctx.buildGraph(outs);
  graph.validate(backend);
  graph.allocate(backend);
  xt.set(x);
  await graph.compute(backend);
  const [mine, ggml] = outs.map((o) => o.get(new Float32Array(o.nbytes / 4)));
  graph.dispose();
  return { mine: mine!, ggml: ggml! };
}

describe.skipIf(!buildInfo().panelKernelF32)(`f32 panel kernel (${buildInfo().panelKernelF32})`, () => {
  // rows 16: one panel; 80: a 3-panel and a 2-panel group; k 2100: three blocks of 700 (a 16-value
  // tail in each transpose); 300 tokens: two chunks of repacked activations.
  for (const [rows, k, tokens] of [
    [16, 40, 3],
    [80, 300, 26],
    [48, 2100, 300],
  ] as const) {
    it(`${rows} rows x ${k}, ${tokens} tokens: the float64 product to f32 accuracy, as ggml's mul_mat`, async () => {
      const { w, panel, values } = packed(rows, k, rows + k);
      const x = uniform(k * tokens, tokens, -2, 2);
      const { mine, ggml } = await multiply(panel, w, rows, k, x, tokens);
      const ref = exact(values, rows, k, x, tokens);
      expect(relMax(mine, ref)).toBeLessThan(1e-6);
      expect(relMax(mine, ggml)).toBeLessThan(2e-6);
    });
  }

  it('gives the same bits for a token alone, in a batch of 600, and on one thread or two', async () => {
    const rows = 80;
    const k = 1100;
    const tokens = 600;
    const { w, panel } = packed(rows, k, 3);
    const x = uniform(k * tokens, 4, -2, 2);
    const all = (await multiply(panel, w, rows, k, x, tokens)).mine;
    const one = openBackend({ device: 'cpu', threads: 1 });
    try {
      const single = (await multiply(panel, w, rows, k, x, tokens, one)).mine;
      expect(Buffer.from(single.buffer).equals(Buffer.from(all.buffer))).toBe(true);
    } finally {
      one.dispose();
    }
    for (const m of [0, 7, 255, 256, 599]) {
      const got = (await multiply(panel, w, rows, k, x.subarray(m * k, (m + 1) * k), 1)).mine;
      expect(Buffer.from(got.buffer).equals(Buffer.from(all.buffer, m * rows * 4, rows * 4))).toBe(true);
    }
  });

  it('reads the weights from the panel: one changed value shows', async () => {
    const rows = 48;
    const k = 96;
    const { w, panel } = packed(rows, k, 5);
    const x = uniform(k * 10, 6, -2, 2);
    const bytes = panel.get(new Uint8Array(panel.nbytes));
    new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)[3 * 16 + 5]! += 1; // row 5, k 3
    panel.set(bytes);
    const { mine, ggml } = await multiply(panel, w, rows, k, x, 10);
    expect(relMax(mine, ggml)).toBeGreaterThan(1e-3);
  });

  it('finishes its outputs (bias, GELU, layer scale, residual) with the bits of the nodes it replaces', async () => {
    const rows = 48;
    const k = 96;
    const { panel } = packed(rows, k, 8);
    const ctx = createContext(24);
    const xt = ctx.newTensor(F32, [k, 20]);
    const [bias, scale] = [ctx.newTensor(F32, [rows]), ctx.newTensor(F32, [rows])];
    const residual = ctx.newTensor(F32, [rows, 20]);
    const chain = ctx.add(residual, ctx.mul(ctx.geluErfCpu(ctx.add(ctx.panelMulMat(panel, xt, rows, F32), bias)), scale));
    const outs = [
      ctx.panelMulMat(panel, xt, rows, F32, undefined, { bias, gelu: true, scale, add: residual }),
      chain,
      ctx.panelMulMat(panel, xt, rows, F32, undefined, { bias }),
      ctx.add(ctx.panelMulMat(panel, xt, rows, F32), bias),
    ];
    const [fused, separate, biased, added] = await run(ctx, outs, [
      { tensor: xt, data: uniform(k * 20, 9, -2, 2) },
      { tensor: bias, data: uniform(rows, 10) },
      { tensor: scale, data: uniform(rows, 11, 0.5, 1.5) },
      { tensor: residual, data: uniform(rows * 20, 12) },
    ]);
    expect(Buffer.from(fused!.buffer).equals(Buffer.from(separate!.buffer))).toBe(true);
    expect(Buffer.from(biased!.buffer).equals(Buffer.from(added!.buffer))).toBe(true);
    const bad = createContext(8);
    const x3 = bad.newTensor(F32, [k, 3]);
    expect(() => bad.panelMulMat(panel, x3, rows, F32, undefined, { bias: bad.newTensor(F32, [rows - 16]) })).toThrowError(
      expect.objectContaining({ code: 'BAD_SHAPE' }),
    );
    expect(() => bad.panelMulMat(panel, x3, rows, F32, undefined, { add: bad.newTensor(F32, [rows, 4]) })).toThrowError(
      expect.objectContaining({ code: 'BAD_SHAPE' }),
    );
  });

  it('f16 weights: the float64 product of their values, closer to it than ggml (which rounds x to f16), same bits alone or in a batch', async () => {
    const [rows, k, tokens] = [80, 300, 26];
    const { bits, rounded } = await toF16(uniform(rows * k, 41));
    const { w, panel } = packInto(F16, rows, k, bits);
    const x = uniform(k * tokens, 42, -2, 2);
    const { mine, ggml } = await multiply(panel, w, rows, k, x, tokens, cpu(), F16);
    const ref = exact(rounded, rows, k, x, tokens);
    expect(relMax(mine, ref)).toBeLessThan(1e-6);
    expect(relMax(ggml, ref)).toBeGreaterThan(relMax(mine, ref));
    expect(relMax(mine, ggml)).toBeLessThan(2e-3);
    const one = (await multiply(panel, w, rows, k, x.subarray(7 * k, 8 * k), 1, cpu(), F16)).mine;
    expect(Buffer.from(one.buffer).equals(Buffer.from(mine.buffer, 7 * rows * 4, rows * 4))).toBe(true);
  });

  it('refuses shapes the layout cannot hold and kernels that are not for f32', () => {
    expect(() => panelBytes(F32, 40, 96)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const { panel } = packed(48, 96, 7);
    const ctx = createContext(8);
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), 32, F32)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), 48, F32, 'avx512-vnni')).toThrowError(
      expect.objectContaining({ code: 'UNSUPPORTED', message: expect.stringContaining('f32') }),
    );
    expect(ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), 48, F32, buildInfo().panelKernelF32!).ne).toEqual([48, 3, 1, 1]);
    const other = buildInfo().panelKernelF32 === 'avx512' ? 'avx2' : 'avx512';
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), 48, F32, other)).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });
});
