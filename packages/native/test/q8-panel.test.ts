// The AVX-512 VNNI q8_0 panel kernel against a float64 model of its arithmetic, against ggml's own
// q8_0 mul_mat, and for independence from how tokens are tiled and split between threads.
import { describe, expect, it } from 'vitest';
import { buildInfo, createContext, dequantizeRow, q8PanelBytes, q8PanelPack, quantizeRows, type Context, type Tensor } from '../src/index.js';
import { F32, cpu, run, uniform } from './helpers.js';

const Q8_0 = 8;
const I8 = 24;

/** A q8_0 weight [k, rows] in host memory, and its panel form. */
async function weight(rows: number, k: number, seed: number): Promise<{ w: Tensor; panel: Tensor; bytes: Uint8Array; ctx: Context }> {
  const bytes = await quantizeRows(Q8_0, uniform(rows * k, seed), rows, k);
  const ctx = createContext(4);
  const w = ctx.newTensor(Q8_0, [k, rows]);
  const panel = ctx.newTensor(I8, [q8PanelBytes(rows, k)]);
  ctx.allocate(cpu());
  w.set(bytes);
  q8PanelPack(w, panel);
  return { w, panel, bytes, ctx };
}

const half = (v: number) => {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r; // ties to even, as the CPU rounds
};

/** The kernel's arithmetic in float64: activations quantized per 32-block, exact integer dots, f32 scales. */
function model(bytes: Uint8Array, rows: number, k: number, x: Float32Array, tokens: number): Float64Array {
  const wq = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const dw = dequantizeRow(Q8_0, bytes, rows * k); // value = d·q, so d = value / q where q != 0
  const out = new Float64Array(rows * tokens);
  const nb = k / 32;
  for (let m = 0; m < tokens; m++)
    for (let b = 0; b < nb; b++) {
      let amax = 0;
      for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[m * k + b * 32 + j]!));
      const scale = Math.fround(amax / 127);
      const inv = scale !== 0 ? Math.fround(1 / scale) : 0;
      const q = Array.from({ length: 32 }, (_, j) => half(Math.fround(x[m * k + b * 32 + j]! * inv)));
      for (let r = 0; r < rows; r++) {
        const block = (r * nb + b) * 34;
        let dot = 0;
        let d = 0;
        for (let j = 0; j < 32; j++) {
          const qw = wq[block + 2 + j]!;
          dot += qw * q[j]!;
          if (qw !== 0) d = dw[r * k + b * 32 + j]! / qw;
        }
        out[m * rows + r] += dot * d * scale;
      }
    }
  return out;
}

function relMax(got: Float32Array, ref: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < ref.length; i++) {
    num = Math.max(num, Math.abs(got[i]! - ref[i]!));
    den = Math.max(den, Math.abs(ref[i]!));
  }
  return num / den;
}

describe.skipIf(!buildInfo().q8Panel)('q8_0 panel kernel (VNNI)', () => {
  const rows = 48;
  const k = 96;
  const shape = [k, 13, 2]; // 26 tokens: tiles of 8 and single tails on both threads

  it('computes what its float64 model computes', async () => {
    const { panel, bytes } = await weight(rows, k, 5);
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape);
    const data = uniform(k * 26, 6, -2, 2);
    const [got] = await run(ctx, [ctx.q8PanelMulMat(panel, x, rows)], [{ tensor: x, data }]);
    expect(got!.length).toBe(rows * 26);
    expect(relMax(got!, model(bytes, rows, k, data, 26))).toBeLessThan(1e-6);
  });

  it("agrees with ggml's own q8_0 mul_mat to q8_0 precision, and a wrong scale does not", async () => {
    const { w, panel } = await weight(rows, k, 7);
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape);
    const data = uniform(k * 26, 8, -2, 2);
    const [mine, ggml] = await run(ctx, [ctx.q8PanelMulMat(panel, x, rows), ctx.mulMat(w, x)], [{ tensor: x, data }]);
    // ggml keeps activation scales in f16, this kernel in f32: they differ by that rounding alone.
    expect(relMax(mine!, ggml!)).toBeLessThan(2e-3);
    const bad = panel.get(new Uint8Array(panel.nbytes));
    new Float32Array(bad.buffer, bad.byteOffset + 8 * 64, 16)[3]! *= 1.05; // one row's scale of block 0, +5 %
    panel.set(bad);
    const ctx2 = createContext(8);
    const x2 = ctx2.newTensor(F32, shape);
    const [broken] = await run(ctx2, [ctx2.q8PanelMulMat(panel, x2, rows)], [{ tensor: x2, data }]);
    expect(relMax(broken!, ggml!)).toBeGreaterThan(5e-3);
  });

  it('gives the same bits whether tokens come 26 at a time or one at a time', async () => {
    const { panel } = await weight(rows, k, 9);
    const data = uniform(k * 26, 10, -2, 2);
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape);
    const [all] = await run(ctx, [ctx.q8PanelMulMat(panel, x, rows)], [{ tensor: x, data }]);
    for (const m of [0, 7, 8, 25]) {
      const one = createContext(8);
      const xm = one.newTensor(F32, [k, 1]);
      const [got] = await run(one, [one.q8PanelMulMat(panel, xm, rows)], [{ tensor: xm, data: data.subarray(m * k, (m + 1) * k) }]);
      expect(Buffer.from(got!.buffer).equals(Buffer.from(all!.buffer, m * rows * 4, rows * 4))).toBe(true);
    }
  });

  it('gives the same bits on every kernel this CPU runs', async () => {
    const kernels = ['avx512-vnni', 'avx-vnni'].filter((name) => {
      const ctx = createContext(4);
      try {
        ctx.q8PanelMulMat(ctx.newTensor(I8, [q8PanelBytes(16, 32)]), ctx.newTensor(F32, [32, 1]), 16, name);
        return true;
      } catch {
        return false;
      }
    });
    expect(kernels).toContain(buildInfo().q8Panel);
    const { panel } = await weight(rows, k, 12);
    const data = uniform(k * 26, 13, -2, 2);
    const results: Buffer[] = [];
    for (const name of kernels) {
      const ctx = createContext(8);
      const x = ctx.newTensor(F32, shape);
      const [got] = await run(ctx, [ctx.q8PanelMulMat(panel, x, rows, name)], [{ tensor: x, data }]);
      results.push(Buffer.from(got!.buffer));
    }
    for (const r of results) expect(r.equals(results[0]!)).toBe(true);
    const ctx = createContext(4);
    expect(() => ctx.q8PanelMulMat(panel, ctx.newTensor(F32, [k, 1]), rows, 'sse9')).toThrowError(
      expect.objectContaining({ code: 'UNSUPPORTED' }),
    );
  });

  it('refuses shapes the layout cannot hold, naming them', async () => {
    expect(() => q8PanelBytes(40, 96)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => q8PanelBytes(48, 80)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const { panel } = await weight(rows, k, 11);
    const ctx = createContext(8);
    const wrongK = ctx.newTensor(F32, [64, 3]);
    expect(() => ctx.q8PanelMulMat(panel, wrongK, rows)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const x = ctx.newTensor(F32, [k, 3]);
    expect(() => ctx.q8PanelMulMat(panel, ctx.transpose(ctx.newTensor(F32, [3, k])), rows)).toThrowError(
      expect.objectContaining({ code: 'BAD_SHAPE' }),
    );
    expect(() => ctx.q8PanelMulMat(panel, x, 32)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const f32w = ctx.newTensor(F32, [k, rows]);
    const dst = ctx.newTensor(I8, [q8PanelBytes(rows, k)]);
    ctx.allocate(cpu());
    expect(() => q8PanelPack(f32w, dst)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
  });
});
