// The q8_row panel kernels (I8 weights, one f32 scale per row; each token quantized once to u8 with a
// zero point) against a float64 model of their arithmetic, against the f32 product of the weights they
// stand for, across kernels (AMX, AVX-512 VNNI, AVX-VNNI, plain AVX-512, plain AVX2), and for independence from tiling
// and thread splits.
import { describe, expect, it } from 'vitest';
import { buildInfo, createContext, panelBytes, panelPack, type Tensor } from '../src/index.js';
import { F32, cpu, relMax, run, uniform } from './helpers.js';

const I8 = 24;

/** A q8_row weight: rows × k int8 values in [-127, 127] and a positive scale per row, and its panel. */
function weight(rows: number, k: number, seed: number): { q: Int8Array; scales: Float32Array; panel: Tensor; w: Tensor; s: Tensor } {
  const u = uniform(rows * k, seed, -127.49, 127.49);
  return packed(
    Int8Array.from(u, (v) => Math.round(v)),
    rows,
    k,
    seed + 1,
  );
}

/** q (rows × k) with a positive scale per row, and its panel. */
function packed(q: Int8Array, rows: number, k: number, seed: number): { q: Int8Array; scales: Float32Array; panel: Tensor; w: Tensor; s: Tensor } {
  const scales = uniform(rows, seed, 0.001, 0.02);
  const ctx = createContext(4);
  const w = ctx.newTensor(I8, [k, rows]);
  const s = ctx.newTensor(F32, [rows]);
  const panel = ctx.newTensor(I8, [panelBytes(I8, rows, k)]);
  ctx.allocate(cpu());
  w.set(new Uint8Array(q.buffer));
  s.set(scales);
  panelPack(w, panel, s);
  return { q, scales, panel, w, s };
}

const rint = (v: number) => {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r; // ties to even, as the CPU rounds
};

/** One token's u8 quantization, in the f32 steps the kernel takes. */
function quantizeToken(x: Float32Array): { u: number[]; scale: number; zp: number } {
  let mn = 0;
  let mx = 0;
  for (const v of x) {
    mn = Math.min(mn, v);
    mx = Math.max(mx, v);
  }
  const scale = Math.fround(Math.fround(mx - mn) / 255);
  const inv = scale !== 0 ? Math.fround(1 / scale) : 0;
  const zp = Math.min(255, Math.max(0, rint(Math.fround(-mn * inv))));
  const u = Array.from(x, (v) => Math.min(255, Math.max(0, rint(Math.fround(v * inv)) + zp)));
  return { u, scale, zp };
}

/** The kernels' arithmetic in float64: scale_x·scale_w·Σ (u − zp)·q. */
function model(q: Int8Array, scales: Float32Array, rows: number, k: number, x: Float32Array, tokens: number): Float64Array {
  const out = new Float64Array(rows * tokens);
  for (let m = 0; m < tokens; m++) {
    const t = quantizeToken(x.subarray(m * k, (m + 1) * k));
    for (let r = 0; r < rows; r++) {
      let dot = 0;
      for (let j = 0; j < k; j++) dot += (t.u[j]! - t.zp) * q[r * k + j]!;
      out[m * rows + r] = dot * t.scale * scales[r]!;
    }
  }
  return out;
}

const KERNELS = ['amx', 'avx512-vnni', 'avx-vnni', 'avx512', 'avx2'].filter((name) => {
  const ctx = createContext(4);
  try {
    ctx.panelMulMat(ctx.newTensor(I8, [panelBytes(I8, 16, 64)]), ctx.newTensor(F32, [64, 1]), 16, I8, name);
    return true;
  } catch {
    return false;
  }
});

describe.skipIf(!buildInfo().panelKernelRows)(`q8_row panel kernels (${KERNELS.join(', ')})`, () => {
  const rows = 112; // 7 panels: AMX's pairs and one left over, VNNI's groups of 4 and 3 left over
  // 45 tokens on 2 threads: AMX's 32-token steps with a 16-token one and partial tiles; VNNI's 6-token tiles and tails
  const shape = (k: number) => [k, 15, 3];

  for (const k of [64, 200]) {
    it(`k ${k}: computes what the float64 model computes, on every kernel, with the same bits`, async () => {
      const { q, scales, panel } = weight(rows, k, 5);
      const data = uniform(k * 45, 6, -2, 3);
      const ref = model(q, scales, rows, k, data, 45);
      const results: Buffer[] = [];
      for (const kernel of KERNELS) {
        const ctx = createContext(8);
        const x = ctx.newTensor(F32, shape(k));
        const [got] = await run(ctx, [ctx.panelMulMat(panel, x, rows, I8, kernel)], [{ tensor: x, data }]);
        expect(relMax(got!, ref)).toBeLessThan(1e-6);
        results.push(Buffer.from(got!.buffer));
      }
      expect(KERNELS).toContain(buildInfo().panelKernelRows);
      for (const r of results) expect(r.equals(results[0]!)).toBe(true);
    });
  }

  it('sums the extremes exactly: u8 activations at 0 and 255 against weights of ±127 (no 16-bit saturation on plain AVX2 or AVX-512)', async () => {
    const k = 64;
    const rows16 = 32;
    const { q, scales, panel } = packed(
      Int8Array.from({ length: rows16 * k }, (_, i) => ((i * 7) % 3 === 0 ? -127 : 127)),
      rows16,
      k,
      21,
    );
    // ±1 quantizes to u = 0 and 255 (zero point 128); the signs follow the weights in runs, so pairs of
    // u = 255 meet q = 127 (255·127·2 would saturate vpmaddubsw's 16 bits) and u = 0 meets q = -127
    const data = Float32Array.from({ length: k * 7 }, (_, i) => ((((i % k) * 7) % 3 === 0) !== (Math.floor(i / k) % 2 === 0) ? -1 : 1));
    const ref = model(q, scales, rows16, k, data, 7);
    expect(quantizeToken(data.subarray(0, k)).u.every((u) => u === 0 || u >= 254)).toBe(true);
    const results: Buffer[] = [];
    for (const kernel of KERNELS) {
      const c = createContext(8);
      const x = c.newTensor(F32, [k, 7]);
      const [got] = await run(c, [c.panelMulMat(panel, x, rows16, I8, kernel)], [{ tensor: x, data }]);
      expect(relMax(got!, ref), kernel).toBeLessThan(1e-6);
      results.push(Buffer.from(got!.buffer));
    }
    for (const r of results) expect(r.equals(results[0]!)).toBe(true);
  });

  it('stays within its activation rounding of the f32 product of the weights it stands for; a wrong row scale is caught', async () => {
    const k = 256;
    const { q, scales, panel } = weight(rows, k, 7);
    const data = uniform(k * 45, 8, -2, 3);
    const exact = new Float64Array(rows * 45);
    for (let m = 0; m < 45; m++)
      for (let r = 0; r < rows; r++) for (let j = 0; j < k; j++) exact[m * rows + r] += scales[r]! * q[r * k + j]! * data[m * k + j]!;
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape(k));
    const [got] = await run(ctx, [ctx.panelMulMat(panel, x, rows, I8)], [{ tensor: x, data }]);
    // u8 steps of 5/255 over values in [-2, 3]: the error of a dot of 256 terms stays a few % of its spread
    const bound = relMax(got!, exact);
    expect(bound).toBeLessThan(2e-2);
    const bad = panel.get(new Uint8Array(panel.nbytes));
    new Float32Array(bad.buffer, bad.byteOffset + (k / 4) * 64, 16)[3]! *= 1.05; // row 3's scale, +5 %
    panel.set(bad);
    const ctx2 = createContext(8);
    const x2 = ctx2.newTensor(F32, shape(k));
    const [broken] = await run(ctx2, [ctx2.panelMulMat(panel, x2, rows, I8)], [{ tensor: x2, data }]);
    expect(relMax(broken!, model(q, scales, rows, k, data, 45))).toBeGreaterThan(1e-2);
  });

  // 304 rows: the epilogue runs on chunks of panels as their outputs are done, two whole chunks and a part
  it.each([
    [rows, 'libm'],
    [rows, 'rational'],
    [304, 'libm'],
    [304, 'rational'],
  ] as const)(
    'finishes its %i outputs (bias, GELU with the %s erf, layer scale, residual) with the bits of the nodes it replaces',
    async (rows, erf) => {
      const { panel } = weight(rows, 96, 13);
      const ctx = createContext(24);
      const x = ctx.newTensor(F32, shape(96));
      const [bias, scale] = [ctx.newTensor(F32, [rows]), ctx.newTensor(F32, [rows])];
      const residual = ctx.newTensor(F32, [rows, 15, 3]);
      const chain = ctx.add(residual, ctx.mul(ctx.geluErfCpu(ctx.add(ctx.panelMulMat(panel, x, rows, I8), bias), erf), scale));
      const [fused, separate] = await run(
        ctx,
        [ctx.panelMulMat(panel, x, rows, I8, undefined, { bias, gelu: true, erf, scale, add: residual }), chain],
        [
          { tensor: x, data: uniform(96 * 45, 14, -2, 2) },
          { tensor: bias, data: uniform(rows, 15) },
          { tensor: scale, data: uniform(rows, 16, 0.5, 1.5) },
          { tensor: residual, data: uniform(rows * 45, 17) },
        ],
      );
      expect(Buffer.from(fused!.buffer).equals(Buffer.from(separate!.buffer))).toBe(true);
    },
  );

  it('gives the same bits whether tokens come 45 at a time or one at a time, and a zero token gives zeros', async () => {
    const k = 128;
    const { panel } = weight(rows, k, 9);
    const data = uniform(k * 45, 10, -2, 2);
    data.fill(0, 11 * k, 12 * k);
    const ctx = createContext(8);
    const x = ctx.newTensor(F32, shape(k));
    const [all] = await run(ctx, [ctx.panelMulMat(panel, x, rows, I8)], [{ tensor: x, data }]);
    expect(all!.subarray(11 * rows, 12 * rows).every((v) => v === 0)).toBe(true);
    for (const m of [0, 11, 16, 31, 44]) {
      const one = createContext(8);
      const xm = one.newTensor(F32, [k, 1]);
      const [got] = await run(one, [one.panelMulMat(panel, xm, rows, I8)], [{ tensor: xm, data: data.subarray(m * k, (m + 1) * k) }]);
      expect(Buffer.from(got!.buffer).equals(Buffer.from(all!.buffer, m * rows * 4, rows * 4))).toBe(true);
    }
  });

  it('refuses shapes the layout cannot hold and a pack without its scales, naming them', () => {
    expect(() => panelBytes(I8, 40, 96)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => panelBytes(I8, 48, 32769)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    const ctx = createContext(8);
    const w = ctx.newTensor(I8, [96, 48]);
    const wrong = ctx.newTensor(F32, [47]);
    const dst = ctx.newTensor(I8, [panelBytes(I8, 48, 96)]);
    ctx.allocate(cpu());
    expect(() => panelPack(w, dst)).toThrowError(/needs its F32 scales/);
    expect(() => panelPack(w, dst, wrong)).toThrowError(/needs its F32 scales/);
  });
});
