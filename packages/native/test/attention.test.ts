// flash_attn_ext against a float64 softmax(QK^T * s + mask) V, and against the naive ggml path.
import { describe, expect, it } from 'vitest';
import { createContext, type Tensor } from '../src/index.js';
import { F16, F32, count, run, toF16, uniform, worstError } from './helpers.js';
import * as R from './reference.js';

const d = 40;
const nQ = 23;
const nKV = 23;
const H = 3;
const B = 2;
const scale = 1 / Math.sqrt(d);

/** Additive block-causal style mask: -inf where key block > query block, 0 elsewhere. */
function blockMask(): Float32Array {
  const m = new Float32Array(nKV * nQ);
  for (let i = 0; i < nQ; i++) for (let j = 0; j < nKV; j++) m[i * nKV + j] = Math.floor(j / 5) > Math.floor(i / 5) ? -Infinity : 0;
  return m;
}

async function attend(kvType: number, withMask: boolean, naive = false) {
  const q = uniform(d * nQ * H * B, 1, -2, 2);
  const k = uniform(d * nKV * H * B, 2, -2, 2);
  const v = uniform(d * nKV * H * B, 3);
  const maskVals = blockMask();
  const ctx = createContext(64);
  const tq = ctx.newTensor(F32, [d, nQ, H, B]);
  const tk = ctx.newTensor(kvType, [d, nKV, H, B]);
  const tv = ctx.newTensor(kvType, [d, nKV, H, B]);
  const tm = withMask ? ctx.newTensor(F16, [nKV, nQ]) : null;
  const k16 = await toF16(k);
  const v16 = await toF16(v);
  const m16 = await toF16(maskVals);
  let out: Tensor;
  if (naive) {
    // scores [nKV, nQ, H, B] = k^T q; softmax over keys; out = v^T-weighted sum -> [d, nQ, H, B]
    const kq = ctx.mulMat(tk, tq);
    const p = ctx.softMaxExt(kq, tm, scale);
    const vt = ctx.cont(ctx.permute(tv, 1, 0, 2, 3));
    const o = ctx.mulMat(vt, p); // [d, nQ, H, B]
    out = ctx.cont(ctx.permute(o, 0, 2, 1, 3)); // -> [d, H, nQ, B] like flash
  } else {
    out = ctx.flashAttnExt(tq, tk, tv, tm, scale);
  }
  const inputs = [
    { tensor: tq, data: q },
    { tensor: tk, data: kvType === F16 ? k16.bits : k },
    { tensor: tv, data: kvType === F16 ? v16.bits : v },
  ];
  if (tm) inputs.push({ tensor: tm, data: m16.bits });
  const [got] = await run(ctx, [out], inputs);
  const expected = R.attention(
    R.ref([d, nQ, H, B], q),
    R.ref([d, nKV, H, B], kvType === F16 ? k16.rounded : k),
    R.ref([d, nKV, H, B], kvType === F16 ? v16.rounded : v),
    withMask ? R.ref([nKV, nQ], maskVals) : null,
    scale,
  );
  return { got: got!, expected };
}

describe('flash_attn_ext', () => {
  for (const [kvName, kvType, atol] of [
    ['F32', F32, 2e-6],
    ['F16', F16, 2e-3], // q and the PV accumulator go through f16 on this path
  ] as const) {
    for (const withMask of [false, true]) {
      it(`${kvName} K/V ${withMask ? 'with' : 'without'} an additive F16 mask`, async () => {
        const { got, expected } = await attend(kvType, withMask);
        expect(got.length).toBe(count(expected.ne));
        expect(worstError(got, expected.data, atol, 0)).toBeLessThanOrEqual(1);
      });
    }
  }

  it('the mask matters: the unmasked result misses the masked reference', async () => {
    const { got } = await attend(F32, false);
    const { expected } = await attend(F32, true);
    expect(worstError(got, expected.data, 2e-6, 0)).toBeGreaterThan(1);
  });

  it('the naive mul_mat + soft_max_ext path agrees with the same reference', async () => {
    for (const withMask of [false, true]) {
      const { got, expected } = await attend(F32, withMask, true);
      expect(worstError(got, expected.data, 2e-6, 0)).toBeLessThanOrEqual(1);
    }
  });
});
