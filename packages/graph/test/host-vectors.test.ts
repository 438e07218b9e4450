// Host-side tables against vectors from the float64 reference scripts (scripts/reference).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';
import { blockCausalMaskF16, ropeTables } from '../src/index.js';
import { interpolatePositions } from '../src/position-interpolation.js';

const ref = resolve(__dirname, '../../../fixtures/reference');
const f32 = (p: string) => readNpy(join(ref, p)).data as Float32Array;

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('position-table resize vs torch bicubic', () => {
  const cases = JSON.parse(readFileSync(join(ref, 'positions/manifest.json'), 'utf8')) as {
    name: string;
    out_h: number;
    out_w: number;
    antialias: boolean;
    dim: number;
    prefix: number;
  }[];
  for (const c of cases) {
    it(`${c.name}: to ${c.out_h}x${c.out_w}, antialias ${c.antialias}`, () => {
      const got = interpolatePositions(f32(`positions/${c.name}_in.npy`), c.dim, c.prefix, c.out_h, c.out_w, c.antialias);
      expect(maxAbsDiff(got, f32(`positions/${c.name}_out.npy`))).toBeLessThan(1e-6);
    });
  }

  it('the wrong kernel misses (antialias off where it was on)', () => {
    const c = cases.find((x) => x.antialias && x.out_h < 4)!;
    const got = interpolatePositions(f32(`positions/${c.name}_in.npy`), c.dim, c.prefix, c.out_h, c.out_w, false);
    expect(maxAbsDiff(got, f32(`positions/${c.name}_out.npy`))).toBeGreaterThan(1e-3);
  });
});

describe('3-D RoPE against the reference vectors', () => {
  const grid = { t: 2, h: 3, w: 4 };
  const subset = [0, 5, 11, 13, 23];
  const variants = [
    ['tiled', 'tiled', undefined],
    ['interleaved', 'interleaved', undefined],
    ['interleaved_interp', 'interleaved', 16],
  ] as const;
  for (const hd of [64, 80, 32]) {
    for (const [name, layout, refGrid] of variants) {
      for (const sub of [false, true]) {
        it(`${name} hd ${hd}${sub ? ' on a subsampled id set' : ''}: tables and the in-graph rotation`, async () => {
          const tables = ropeTables({
            headDim: hd,
            layout,
            grid,
            ...(sub ? { ids: subset } : {}),
            ...(refGrid ? { interpolateRefGrid: refGrid } : {}),
          });
          const suffix = `${name}_hd${hd}${sub ? '_subset' : ''}`;
          expect(maxAbsDiff(tables.cos, f32(`rope/cos_${suffix}.npy`))).toBeLessThan(1e-6);
          expect(maxAbsDiff(tables.sin, f32(`rope/sin_${suffix}.npy`))).toBeLessThan(1e-6);
          const q = f32(`rope/q_hd${hd}.npy`);
          const rows = sub ? Float32Array.from(subset.flatMap((id) => Array.from(q.subarray(id * hd, (id + 1) * hd)))) : q;
          const rotated = await rotateInGraph(rows, tables);
          expect(maxAbsDiff(rotated, f32(`rope/q_rot_${suffix}.npy`))).toBeLessThan(2e-6);
        });
      }
    }
  }

  it('the layouts are not interchangeable (the tiled rotation misses the interleaved vector)', async () => {
    const tiled = ropeTables({ headDim: 32, layout: 'tiled', grid });
    const rotated = await rotateInGraph(f32('rope/q_hd32.npy'), tiled);
    expect(maxAbsDiff(rotated, f32('rope/q_rot_interleaved_hd32.npy'))).toBeGreaterThan(1e-2);
  });
});

describe('block-causal mask against the reference', () => {
  it('matches entry by entry (3 slots of 2x2 patches with CLS)', () => {
    const expected = readNpy(join(ref, 'mask/block_causal_t3_h2_w2_cls.npy'));
    const mask = blockCausalMaskF16({ prefix: 1, slots: 3, tokensPerSlot: 4 });
    const open = Array.from(mask, (v) => (v === 0 ? 1 : 0));
    expect(open).toEqual(Array.from(expected.data as Uint8Array, Number));
  });
});

async function rotateInGraph(rows: Float32Array, tables: { cos: Float32Array; sin: Float32Array; rows: number; headDim: number }) {
  const { createContext, openBackend } = await import('@jepa/native');
  const { applyRope } = await import('../src/layers/rope-apply.js');
  const { signedSin } = await import('../src/index.js');
  const backend = openBackend({ device: 'cpu', threads: 1 });
  const ctx = createContext(16);
  const hd = tables.headDim;
  const x = ctx.newTensor(0, [hd, 1, tables.rows]);
  const cos = ctx.newTensor(0, [hd, 1, tables.rows]);
  const sin = ctx.newTensor(0, [hd, 1, tables.rows]);
  for (const t of [x, cos, sin]) t.setInput();
  const out = applyRope(ctx, x, cos, sin);
  out.setOutput();
  const graph = ctx.buildGraph([out]);
  graph.allocate(backend);
  x.set(rows);
  cos.set(tables.cos);
  sin.set(signedSin(tables as Parameters<typeof signedSin>[0]));
  await graph.compute(backend);
  const result = out.get(new Float32Array(rows.length));
  graph.dispose();
  ctx.dispose();
  backend.dispose();
  return result;
}
