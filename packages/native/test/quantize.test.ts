import { describe, expect, it } from 'vitest';
import { buildInfo, dequantizeRow, devices, quantizeRows, resolveDevice, rowBytes, typeByName, typeTraits } from '../src/index.js';
import { uniform } from './helpers.js';

describe('types and quantization', () => {
  it('reads type traits from ggml', () => {
    expect(typeTraits(typeByName('f32'))).toMatchObject({ blockSize: 1, typeSize: 4, isQuantized: false });
    expect(typeTraits(typeByName('q8_0'))).toMatchObject({ blockSize: 32, typeSize: 34, isQuantized: true });
    expect(typeTraits(typeByName('q4_K'))).toMatchObject({ blockSize: 256, typeSize: 144 });
    expect(rowBytes(typeByName('q4_0'), 64)).toBe(36);
    expect(() => typeByName('q9_9')).toThrowError(expect.objectContaining({ code: 'BAD_TYPE' }));
  });

  for (const [name, bound] of [
    ['q8_0', 0.01],
    ['q6_K', 0.02],
    ['q4_0', 0.15],
    ['f16', 0.001],
    ['bf16', 0.01],
  ] as const) {
    it(`${name} round-trips within its precision`, async () => {
      const type = typeByName(name);
      const rows = 3;
      const n = 256;
      const src = uniform(rows * n, 3);
      const bytes = await quantizeRows(type, src, rows, n);
      expect(bytes.length).toBe(rows * rowBytes(type, n));
      const back = dequantizeRow(type, bytes, rows * n);
      let worst = 0;
      for (let i = 0; i < src.length; i++) worst = Math.max(worst, Math.abs(back[i]! - src[i]!));
      expect(worst).toBeLessThan(bound);
      expect(worst).toBeGreaterThan(0);
    });
  }

  it('refuses rows that are not whole blocks, and size mismatches', async () => {
    const q4k = typeByName('q4_K');
    expect(() => quantizeRows(q4k, new Float32Array(200), 1, 200)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
    expect(() => quantizeRows(typeByName('q8_0'), new Float32Array(64), 3, 32)).toThrowError(expect.objectContaining({ code: 'BAD_SHAPE' }));
  });

  it('lists the CPU device and resolves device requests', () => {
    expect(devices().some((d) => d.type === 'cpu')).toBe(true);
    expect(resolveDevice('cpu')).toBe('CPU');
    const info = buildInfo();
    expect(info.ggmlVersion).toBe('0.23.0');
    expect(info.ggmlCommit).toBe('80fb11ac73e66d89eae2c6a91d8a77428fa733ed');
    if (!info.cuda) expect(() => resolveDevice('cuda:0')).toThrowError(expect.objectContaining({ code: 'NO_DEVICE' }));
    expect(() => resolveDevice('tpu')).toThrowError(expect.objectContaining({ code: 'NO_DEVICE' }));
  });
});
