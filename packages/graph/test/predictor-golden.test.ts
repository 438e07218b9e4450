// The V-JEPA 2 and 2.1 masked predictors against the float64 reference, full and subsampled id
// sets, with the negative controls that must fail: the wrong mask token and the wrong RoPE layout
// (head_dim 32: five frequencies per axis, so the tiled layout wraps around inside each axis).
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE_HEADS } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { Model, compareTokens, judge, policyRow, runtimeFromEnv, type PredictorContextOptions } from '../src/index.js';

const root = REFERENCE_HEADS;
const npy = (dir: string, name: string) => readNpy(join(root, dir, `${name}.npy`)).data;
const ids = (dir: string, name: string) => Array.from(npy(dir, name) as BigInt64Array, Number);
const row = policyRow('cpu', 'image', 'f32');

async function run(dir: string, tag: 'full' | 'sub', options: PredictorContextOptions = {}, maskIndex?: number) {
  const model = await Model.load(join(root, dir, 'model.gguf'), { threads: 2 });
  const p = model.spec.pred!;
  if (p.kind !== 'masked') throw new Error('not a masked predictor');
  const tokens = npy(dir, 'tokens') as Float32Array;
  const n = tokens.length / p.embedInDim;
  const all = Array.from({ length: n }, (_, i) => i);
  const contextIds = tag === 'full' ? all : ids(dir, 'context_ids_sub');
  const targetIds = tag === 'full' ? all : ids(dir, 'target_ids_sub');
  const ctx = model.createPredictorContext(options);
  const out = await ctx.predict({
    tokens,
    dim: p.embedInDim,
    contextIds,
    targetIds,
    ...(maskIndex !== undefined ? { maskIndex } : {}),
    modality: dir === 'vjepa2_1_predictor' && tag === 'sub' ? 'image' : 'video',
    returnContext: p.projContext,
  });
  model.dispose();
  return out;
}

describe('masked predictors against the float64 reference', () => {
  for (const dir of ['vjepa2_predictor', 'vjepa2_1_predictor']) {
    for (const tag of ['full', 'sub'] as const) {
      it(`${dir} ${tag}: targets${dir.includes('2_1') ? ' and projected context' : ''} pass the cpu/image/f32 row`, async () => {
        const out = await run(dir, tag);
        const verdict = judge(row, compareTokens(out.targets, npy(dir, `targets_${tag}`) as Float32Array, out.outDim));
        console.log(`${dir} ${tag} targets ${verdict.summary}`);
        expect(verdict.pass).toBe(true);
        if (dir === 'vjepa2_1_predictor') {
          const c = judge(row, compareTokens(out.context!, npy(dir, `context_${tag}`) as Float32Array, out.outDim));
          console.log(`${dir} ${tag} context ${c.summary}`);
          expect(c.pass).toBe(true);
        }
      });
    }
  }

  it('naive attention passes too (vjepa2 sub)', async () => {
    const out = await run('vjepa2_predictor', 'sub', { noFlash: true });
    expect(judge(row, compareTokens(out.targets, npy('vjepa2_predictor', 'targets_sub') as Float32Array, out.outDim)).pass).toBe(true);
  });

  for (const dir of ['vjepa2_predictor', 'vjepa2_1_predictor']) {
    it(`${dir}: negative controls fail — mask token 0 instead of the default 1, and the other RoPE layout`, async () => {
      const expected = npy(dir, 'targets_sub') as Float32Array;
      const wrongMask = await run(dir, 'sub', {}, 0);
      const m = judge(row, compareTokens(wrongMask.targets, expected, wrongMask.outDim));
      console.log(`${dir} control mask_index 0: ${m.summary}`);
      expect(m.pass).toBe(false);
      const other = dir === 'vjepa2_predictor' ? 'interleaved' : 'tiled';
      const wrongLayout = await run(dir, 'sub', { ropeLayout: other });
      const l = judge(row, compareTokens(wrongLayout.targets, expected, wrongLayout.outDim));
      console.log(`${dir} control ${other} RoPE: ${l.summary}`);
      expect(l.pass).toBe(false);
    });
  }

  it('mask index wraps modulo the number of mask tokens (index 11 of 10 is token 1)', async () => {
    const a = await run('vjepa2_predictor', 'sub', {}, 11);
    const b = await run('vjepa2_predictor', 'sub', {}, 1);
    expect(Buffer.from(a.targets.buffer).equals(Buffer.from(b.targets.buffer))).toBe(true);
  });

  it('refuses off-grid and non-integer ids with OFF_GRID, tokens of the wrong width, and graphs over the budget', async () => {
    const model = await Model.load(join(root, 'vjepa2_predictor', 'model.gguf'), { threads: 1 });
    const tokens = npy('vjepa2_predictor', 'tokens') as Float32Array;
    const dim = 32;
    const ctx = model.createPredictorContext();
    await expect(ctx.predict({ tokens, dim, contextIds: [0, 1], targetIds: [32] })).rejects.toMatchObject({ code: 'OFF_GRID' });
    await expect(ctx.predict({ tokens, dim, contextIds: [-1], targetIds: [3] })).rejects.toMatchObject({ code: 'OFF_GRID' });
    await expect(ctx.predict({ tokens, dim, contextIds: [0.5], targetIds: [3] })).rejects.toThrow(/off the predictor grid/);
    await expect(ctx.predict({ tokens, dim: 16, contextIds: [0], targetIds: [3] })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    const budgeted = await Model.load(model.path, { threads: 1, runtime: runtimeFromEnv({ JEPA_MAX_GRAPH_MIB: '1' }) });
    await expect(
      budgeted.createPredictorContext().predict({ tokens, dim, contextIds: new Array(3000).fill(0), targetIds: [3] }),
    ).rejects.toMatchObject({ code: 'OVER_BUDGET' });
    // negative control: the same call under the default budget is refused only for being off the grid, if at all
    await expect(ctx.predict({ tokens, dim, contextIds: new Array(3000).fill(0), targetIds: [3] })).resolves.toBeDefined();
    budgeted.dispose();
    model.dispose();
  });
});
