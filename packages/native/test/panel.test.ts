// The 8-bit panel kernels (q8_0, q4_0, q4_K weights; AVX-512 VNNI, AVX-VNNI, plain AVX2) against a
// float64 model of their arithmetic,
// against ggml's own mul_mat on the same weights, across kernels, and for independence from how
// tokens are tiled and split between threads.
import { describe, expect, it } from 'vitest';
import { buildInfo, createContext, dequantizeRow, panelBytes, panelPack, quantizeRows, typeByName, type Tensor } from '../src/index.js';
import { F32, cpu, run, uniform, relMax } from './helpers.js';

const I8 = 24;

/** A quantized weight [k, rows] in host memory, its panel form, and its values as ggml dequantizes them. */
async function weight(
  type: number,
  rows: number,
  k: number,
  seed: number,
  source = uniform(rows * k, seed),
): Promise<{ w: Tensor; panel: Tensor; values: Float32Array }> {
  const bytes = await quantizeRows(type, source, rows, k);
  const ctx = createContext(4);
  const w = ctx.newTensor(type, [k, rows]);
  const panel = ctx.newTensor(I8, [panelBytes(type, rows, k)]);
  ctx.allocate(cpu());
  w.set(bytes);
  panelPack(w, panel);
  return { w, panel, values: dequantizeRow(type, bytes, rows * k) };
}

const half = (v: number) => {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r; // ties to even, as the CPU rounds
};

/** The kernels' arithmetic in float64: activations quantized per 32-block, products with the weights' values. */
function model(values: Float32Array, rows: number, k: number, x: Float32Array, tokens: number): Float64Array {
  const out = new Float64Array(rows * tokens);
  for (let m = 0; m < tokens; m++)
    for (let b = 0; b < k / 32; b++) {
      let amax = 0;
      for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[m * k + b * 32 + j]!));
      const scale = Math.fround(amax / 127);
      const inv = scale !== 0 ? Math.fround(1 / scale) : 0;
      const q = Array.from({ length: 32 }, (_, j) => half(Math.fround(x[m * k + b * 32 + j]! * inv)));
      for (let r = 0; r < rows; r++) {
        let dot = 0;
        for (let j = 0; j < 32; j++) dot += q[j]! * values[r * k + b * 32 + j]!;
        out[m * rows + r] += dot * scale;
      }
    }
  return out;
}

const KERNELS = ['avx512-vnni', 'avx-vnni', 'avx2'].filter((name) => {
  const ctx = createContext(4);
  try {
    ctx.panelMulMat(ctx.newTensor(I8, [panelBytes(typeByName('q8_0'), 16, 32)]), ctx.newTensor(F32, [32, 1]), 16, typeByName('q8_0'), name);
    return true;
  } catch {
    return false;
  }
});

describe.skipIf(!buildInfo().panelKernel)(`8-bit panel kernels (${KERNELS.join(', ')})`, () => {
  const rows = 48;
  const shape = (k: number) => [k, 13, 2]; // 26 tokens: full tiles and single tails on both threads

  for (const [name, k, ggmlBound] of [
    ['q8_0', 96, 2e-3],
    ['q4_0', 96, 2e-3],
    ['q4_K', 512, 5e-3],
  ] as const) {
    const type = typeByName(name);

    it(`${name}: computes what the float64 model computes, on every kernel, with the same bits`, async () => {
      const { panel, values } = await weight(type, rows, k, 5);
      const data = uniform(k * 26, 6, -2, 2);
      const ref = model(values, rows, k, data, 26);
      const results: Buffer[] = [];
      for (const kernel of KERNELS) {
        const ctx = createContext(8);
        const x = ctx.newTensor(F32, shape(k));
        const [got] = await run(ctx, [ctx.panelMulMat(panel, x, rows, type, kernel)], [{ tensor: x, data }]);
        expect(relMax(got!, ref)).toBeLessThan(1e-6);
        results.push(Buffer.from(got!.buffer));
      }
      expect(KERNELS).toContain(buildInfo().panelKernel);
      for (const r of results) expect(r.equals(results[0]!)).toBe(true);
    });

    it(`${name}: agrees with ggml's own mul_mat, is no further from the exact product, and a corrupted scale is caught`, async () => {
      const { w, panel, values } = await weight(type, rows, k, 7);
      const data = uniform(k * 26, 8, -2, 2);
      const ctx = createContext(8);
      const x = ctx.newTensor(F32, shape(k));
      const [mine, ggml] = await run(ctx, [ctx.panelMulMat(panel, x, rows, type), ctx.mulMat(w, x)], [{ tensor: x, data }]);
      // ggml quantizes the activations with f16 scales per 32 (q8_0) or one scale per 256 (q8_K, for
      // q4_K); these kernels keep an f32 scale per 32, so they differ from ggml by that and are closer to exact.
      expect(relMax(mine!, ggml!)).toBeLessThan(ggmlBound);
      const exact = new Float64Array(rows * 26);
      for (let m = 0; m < 26; m++)
        for (let r = 0; r < rows; r++) for (let j = 0; j < k; j++) exact[m * rows + r] += values[r * k + j]! * data[m * k + j]!;
      expect(relMax(mine!, exact)).toBeLessThanOrEqual(relMax(ggml!, exact) * 1.2);
      const bad = panel.get(new Uint8Array(panel.nbytes));
      const scalesAt = name === 'q8_0' ? 8 * 64 : 8 * 32;
      new Float32Array(bad.buffer, bad.byteOffset + scalesAt, 16)[3]! *= 1.05; // one row's scale of block 0, +5 %
      panel.set(bad);
      const ctx2 = createContext(8);
      const x2 = ctx2.newTensor(F32, shape(k));
      const [broken] = await run(ctx2, [ctx2.panelMulMat(panel, x2, rows, type)], [{ tensor: x2, data }]);
      expect(relMax(broken!, ggml!)).toBeGreaterThan(5e-3);
    });
  }

  it('q8_0: sums the extremes exactly, activations and weights all ±127 (no 16-bit saturation on plain AVX2)', async () => {
    const k = 64;
    const sign = (i: number) => (((i % k) * 7) % 3 === 0 ? -1 : 1);
    const { panel, values } = await weight(
      typeByName('q8_0'),
      rows,
      k,
      0,
      Float32Array.from({ length: rows * k }, (_, i) => sign(i)),
    );
    const data = Float32Array.from({ length: k * 26 }, (_, i) => (Math.floor(i / k) % 2 === 0 ? sign(i) : -sign(i)));
    const ref = model(values, rows, k, data, 26);
    const results: Buffer[] = [];
    for (const kernel of KERNELS) {
      const ctx = createContext(8);
      const x = ctx.newTensor(F32, shape(k));
      const [got] = await run(ctx, [ctx.panelMulMat(panel, x, rows, typeByName('q8_0'), kernel)], [{ tensor: x, data }]);
      expect(relMax(got!, ref), kernel).toBeLessThan(1e-6);
      results.push(Buffer.from(got!.buffer));
    }
    for (const r of results) expect(r.equals(results[0]!)).toBe(true);
  });

  // only AVX-512 VNNI has wide tiles; elsewhere both runs would take the same path
  it.runIf(buildInfo().panelKernel === 'avx512-vnni').each(['q8_0', 'q4_0'] as const)(
    '%s: wide tiles (3 panels at once) give the bits of one panel at a time (JEPA_PANEL_WIDE=0)',
    async (name) => {
      const type = typeByName(name);
      const wideRows = 80; // one wide group of 3 panels and 2 panels left over
      const { panel, values } = await weight(type, wideRows, 96, 21);
      const data = uniform(96 * 26, 22, -2, 2);
      const once = async () => {
        const ctx = createContext(8);
        const x = ctx.newTensor(F32, shape(96));
        const [got] = await run(ctx, [ctx.panelMulMat(panel, x, wideRows, type)], [{ tensor: x, data }]);
        return got!;
      };
      const wide = await once();
      process.env.JEPA_PANEL_WIDE = '0';
      const narrow = await once().finally(() => delete process.env.JEPA_PANEL_WIDE);
      expect(relMax(wide, model(values, wideRows, 96, data, 26))).toBeLessThan(1e-6);
      expect(Buffer.from(wide.buffer).equals(Buffer.from(narrow.buffer))).toBe(true);
    },
  );

  it.each(['libm', 'rational'] as const)(
    'finishes its outputs (bias, GELU with the %s erf, layer scale, residual) with the bits of the nodes it replaces',
    async (erf) => {
      const type = typeByName('q8_0');
      const { panel } = await weight(type, rows, 96, 13);
      const ctx = createContext(24);
      const x = ctx.newTensor(F32, shape(96));
      const [bias, scale] = [ctx.newTensor(F32, [rows]), ctx.newTensor(F32, [rows])];
      const residual = ctx.newTensor(F32, [rows, 13, 2]);
      const chain = ctx.add(residual, ctx.mul(ctx.geluErfCpu(ctx.add(ctx.panelMulMat(panel, x, rows, type), bias), erf), scale));
      const [fused, separate] = await run(
        ctx,
        [ctx.panelMulMat(panel, x, rows, type, undefined, { bias, gelu: true, erf, scale, add: residual }), chain],
        [
          { tensor: x, data: uniform(96 * 26, 14, -2, 2) },
          { tensor: bias, data: uniform(rows, 15) },
          { tensor: scale, data: uniform(rows, 16, 0.5, 1.5) },
          { tensor: residual, data: uniform(rows * 26, 17) },
        ],
      );
      expect(Buffer.from(fused!.buffer).equals(Buffer.from(separate!.buffer))).toBe(true);
    },
  );

  it('gives the same bits whether tokens come 26 at a time or one at a time', async () => {
    const type = typeByName('q4_K');
    const k = 256;
    const { panel } = await weight(type, rows, k, 9);
    const data = uniform(k * 26, 10, -2, 2);
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape(k));
    const [all] = await run(ctx, [ctx.panelMulMat(panel, x, rows, type)], [{ tensor: x, data }]);
    for (const m of [0, 7, 8, 25]) {
      const one = createContext(8);
      const xm = one.newTensor(F32, [k, 1]);
      const [got] = await run(one, [one.panelMulMat(panel, xm, rows, type)], [{ tensor: xm, data: data.subarray(m * k, (m + 1) * k) }]);
      expect(Buffer.from(got!.buffer).equals(Buffer.from(all!.buffer, m * rows * 4, rows * 4))).toBe(true);
    }
  });

  it('refuses types and shapes the layout cannot hold, and kernels the CPU lacks, naming them', async () => {
    const q8 = typeByName('q8_0');
    expect(() => panelBytes(q8, 40, 96)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => panelBytes(q8, 48, 80)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => panelBytes(typeByName('q4_K'), 48, 96)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => panelBytes(typeByName('q6_K'), 48, 256)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const { panel } = await weight(q8, rows, 96, 11);
    const ctx = createContext(12);
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [64, 3]), rows, q8)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => ctx.panelMulMat(panel, ctx.transpose(ctx.newTensor(F32, [3, 96])), rows, q8)).toThrowError(
      expect.objectContaining({ code: 'BAD_SHAPE' }),
    );
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), 32, q8)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => ctx.panelMulMat(panel, ctx.newTensor(F32, [96, 3]), rows, q8, 'sse9')).toThrowError(
      expect.objectContaining({ code: 'UNSUPPORTED' }),
    );
    const f32w = ctx.newTensor(F32, [96, rows]);
    const dst = ctx.newTensor(I8, [panelBytes(q8, rows, 96)]);
    ctx.allocate(cpu());
    expect(() => panelPack(f32w, dst)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
  });
});
