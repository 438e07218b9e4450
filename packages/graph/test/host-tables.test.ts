import { describe, expect, it } from 'vitest';
import { blockCausalMaskBytes, blockCausalMaskF16, rope2dTables, ropeAxisWidth, ropeTables, signedSin } from '../src/index.js';

describe('2-D RoPE tables (DINOv3)', () => {
  const t = rope2dTables({ headDim: 16, rows: 3, cols: 5, prefix: 5, theta: 100 });

  it('give the CLS and registers identity rows', () => {
    expect(t.rows).toBe(20);
    for (let j = 0; j < 5 * 16; j++) expect([t.cos[j], t.sin[j]]).toEqual([1, 0]);
  });

  it('turn pair m by 2π·y / 100^(m/4) for the first quarter of pairs, by x after, each axis over its own length', () => {
    // row 1, column 4 of a 3 x 5 grid: y = 2 · 1.5 / 3 − 1 = 0, x = 2 · 4.5 / 5 − 1 = 0.8
    const base = (5 + 1 * 5 + 4) * 16;
    for (let m = 0; m < 8; m++) {
      const angle = m < 4 ? 0 : (2 * Math.PI * 0.8) / 100 ** ((m - 4) / 4);
      expect(t.sin[base + 2 * m]).toBeCloseTo(Math.sin(angle), 6);
      expect(t.sin[base + 2 * m + 1]).toBe(t.sin[base + 2 * m]);
      expect(t.cos[base + 2 * m]).toBeCloseTo(Math.cos(angle), 6);
    }
    // negative control: the longer side for both axes ("max") puts that column at x = 2 · 4.5 / 5 − 1 too, but
    // row 0 at y = 2 · 0.5 / 5 − 1 = −0.8 instead of 2 · 0.5 / 3 − 1 = −2/3
    const row0 = (5 + 4) * 16;
    expect(t.cos[row0]).toBeCloseTo(Math.cos(2 * Math.PI * (-2 / 3)), 6);
    expect(Math.abs(t.cos[row0]! - Math.cos(2 * Math.PI * -0.8))).toBeGreaterThan(0.5);
  });

  it('refuses a head width that is not a multiple of 4', () => {
    expect(() => rope2dTables({ headDim: 18, rows: 2, cols: 2, prefix: 0, theta: 100 })).toThrow(/multiple of 4/);
  });
});

describe('3-D RoPE tables', () => {
  it('splits the head as the references do', () => {
    expect([64, 80, 32, 88].map(ropeAxisWidth)).toEqual([20, 26, 10, 28]);
  });

  it('tiled rows repeat the half-width angles; interleaved rows pair them', () => {
    const grid = { t: 2, h: 3, w: 4 };
    const tiled = ropeTables({ headDim: 64, layout: 'tiled', grid });
    const inter = ropeTables({ headDim: 64, layout: 'interleaved', grid });
    const row = 23 * 64; // t=1, h=2, w=3
    for (let axis = 0; axis < 3; axis++) {
      for (let j = 0; j < 10; j++) {
        expect(tiled.cos[row + axis * 20 + j]).toBe(tiled.cos[row + axis * 20 + j + 10]);
        expect(inter.cos[row + axis * 20 + 2 * j]).toBe(inter.cos[row + axis * 20 + 2 * j + 1]);
        expect(inter.cos[row + axis * 20 + 2 * j]).toBe(tiled.cos[row + axis * 20 + j]);
      }
    }
    // the width axis at w = 3, k = 1: angle 3 * 10000^(-1/10)
    expect(tiled.sin[row + 40 + 1]).toBeCloseTo(Math.sin(3 * 10000 ** -0.1), 6);
    // pass-through dims stay identity
    for (let j = 60; j < 64; j++) expect([tiled.cos[row + j], tiled.sin[row + j]]).toEqual([1, 0]);
  });

  it('gives prefix tokens identity rows and builds rows for arbitrary id sets', () => {
    const grid = { t: 2, h: 2, w: 2 };
    const full = ropeTables({ headDim: 32, layout: 'tiled', grid });
    const sub = ropeTables({ headDim: 32, layout: 'tiled', grid, ids: [7, 2], prefix: 1 });
    expect(sub.rows).toBe(3);
    expect(Array.from(sub.cos.subarray(0, 32))).toEqual(new Array(32).fill(1));
    expect(Array.from(sub.cos.subarray(32, 64))).toEqual(Array.from(full.cos.subarray(7 * 32, 8 * 32)));
    expect(Array.from(sub.sin.subarray(64, 96))).toEqual(Array.from(full.sin.subarray(2 * 32, 3 * 32)));
    expect(() => ropeTables({ headDim: 32, layout: 'tiled', grid, ids: [8] })).toThrow(/off the 2x2x2 grid/);
  });

  it('interpolate_rope rescales h and w but not t', () => {
    const grid = { t: 2, h: 24, w: 24 };
    const plain = ropeTables({ headDim: 64, layout: 'interleaved', grid, ids: [24 * 24 + 23 * 24 + 23] });
    const interp = ropeTables({ headDim: 64, layout: 'interleaved', grid, ids: [24 * 24 + 23 * 24 + 23], interpolateRefGrid: 16 });
    expect(interp.cos.subarray(0, 20)).toEqual(plain.cos.subarray(0, 20));
    // h = 23 maps to 23 * 15 / 23 = 15
    expect(interp.sin[20 + 2]).toBeCloseTo(Math.sin(15 * 10000 ** -0.1), 6);
  });

  it('folds the rotation sign into the sin table for the swap form', () => {
    const t = ropeTables({ headDim: 32, layout: 'interleaved', grid: { t: 1, h: 1, w: 3 } });
    const s = signedSin(t);
    const x = Array.from({ length: 32 }, (_, i) => i + 1);
    const swap = (v: number[]) => v.map((_, i) => v[i ^ 1]!);
    const row = 2 * 32;
    const viaSwap = x.map((xi, i) => xi * t.cos[row + i]! + swap(x)[i]! * s[row + i]!);
    const direct = x.map((xi, i) => xi * t.cos[row + i]! + (i % 2 === 0 ? -x[i + 1]! : x[i - 1]!) * t.sin[row + i]!);
    expect(viaSwap).toEqual(direct);
  });
});

describe('block-causal mask', () => {
  it('opens 53.1 % of the grid at the released 16-frame 224^2 shape (3137 tokens)', () => {
    const layout = { prefix: 1, slots: 16, tokensPerSlot: 196 };
    const mask = blockCausalMaskF16(layout);
    expect(mask.length).toBe(3137 * 3137);
    const open = mask.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
    expect((100 * open) / mask.length).toBeCloseTo(53.1, 1);
    expect(blockCausalMaskBytes(layout) / 2 ** 20).toBeCloseTo(18.8, 1);
  });

  it('CLS reads everything; no patch reads CLS; slots are causal', () => {
    const n = 1 + 3 * 2;
    const mask = blockCausalMaskF16({ prefix: 1, slots: 3, tokensPerSlot: 2 });
    const open = (q: number, k: number) => mask[q * n + k] === 0;
    for (let k = 0; k < n; k++) expect(open(0, k)).toBe(true);
    for (let q = 1; q < n; q++) expect(open(q, 0)).toBe(false);
    expect(open(1, 2)).toBe(true); // same slot, both ways
    expect(open(2, 1)).toBe(true);
    expect(open(1, 3)).toBe(false); // a later slot
    expect(open(6, 1)).toBe(true); // an earlier slot
    expect(mask[1 * n + 3]).toBe(0xfc00);
  });
});
