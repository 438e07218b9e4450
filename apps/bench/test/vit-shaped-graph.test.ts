import { describe, expect, it } from 'vitest';
import { openBackend } from '@jepa/native';
import { buildVitGraph, createVitWeights } from '../src/vit-shaped-graph.js';
import { median } from '../src/stats.js';

describe('bench building blocks', () => {
  it('the ViT-shaped probe graph validates and computes finite tokens', async () => {
    const backend = openBackend({ device: 'cpu', threads: 2 });
    const shape = { tokens: 5, dim: 32, heads: 2, ffn: 64, layers: 2, weightType: 1 };
    const weights = createVitWeights(shape, backend);
    const g = buildVitGraph(shape, weights, 2);
    expect(g.graph.nodes().filter((n) => n.includes('FLASH_ATTN_EXT'))).toHaveLength(2);
    g.graph.validate(backend);
    g.graph.allocate(backend);
    g.input.set(Float32Array.from({ length: 32 * 5 * 2 }, (_, i) => Math.sin(i)));
    await g.graph.compute(backend);
    const out = g.output.get(new Float32Array(32 * 5 * 2));
    expect(out.every(Number.isFinite)).toBe(true);
    // final LayerNorm with unit-ish gain: each token row has ~zero mean
    const row = out.subarray(0, 32);
    expect(Math.abs(row.reduce((a, b) => a + b, 0) / 32)).toBeLessThan(0.05);
  });

  it('median of even and odd samples', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
