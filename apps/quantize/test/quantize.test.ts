import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, ggmlTypeInfo, loadModelSpec } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { quantizeFile } from '../src/quantize-file.js';
import { withEnv } from './with-env.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-quantize-'));

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

async function tokens(path: string): Promise<Float32Array> {
  const model = await Model.load(path, { threads: 2 });
  const data = Float32Array.from({ length: 3 * 4 * 8 * 8 }, (_, i) => Math.sin(i * 0.31));
  const out = await model.createContext().encode({ data, shape: [1, 3, 4, 8, 8] });
  model.dispose();
  return out.tokens;
}

describe('jepa-quantize', () => {
  const source = forgeModel('vjepa2', { path: join(tmp, 'f32.gguf') });

  it('re-types only 2-D matmul weights; the result validates and stays close to f32', async () => {
    const out = join(tmp, 'q8.gguf');
    const r = await quantizeFile(source.path, out, 'q8_0');
    const spec = loadModelSpec(out);
    expect(spec.fileType).toBe(7);
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.0.attn.qkv.weight')!.type).name).toBe('q8_0');
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.0.ln1.weight')!.type).name).toBe('f32');
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.0.attn.qkv.bias')!.type).name).toBe('f32');
    expect(r.changed).toBeGreaterThan(0);
    expect(cosine(await tokens(source.path), await tokens(out))).toBeGreaterThan(0.999);
  });

  it('k-quants fall back per tensor when rows are not 256-multiples, and lists each', async () => {
    const out = join(tmp, 'q4k.gguf');
    const r = await quantizeFile(source.path, out, 'q4_k');
    expect(r.fallbacks.length).toBeGreaterThan(0);
    expect(r.fallbacks[0]).toMatch(/q4_k -> q4_0/);
    const spec = loadModelSpec(out);
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.1.ffn.fc1.weight')!.type).name).toBe('q4_0');
    expect(cosine(await tokens(source.path), await tokens(out))).toBeGreaterThan(0.98);
  });

  it('--keep leaves matching tensors alone; f16 output is exact to f16 rounding', async () => {
    const out = join(tmp, 'f16.gguf');
    await quantizeFile(source.path, out, 'f16', ['attn.proj']);
    const spec = loadModelSpec(out);
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.0.attn.proj.weight')!.type).name).toBe('f32');
    expect(ggmlTypeInfo(spec.tensors.get('enc.blk.0.ffn.fc2.weight')!.type).name).toBe('f16');
    expect(spec.fileType).toBe(1);
  });

  it('refuses a broken input without leaving an output behind', async () => {
    const bad = forgeModel('hfvit', { truncateTo: 3000, path: join(tmp, 'bad.gguf') });
    const out = join(tmp, 'never.gguf');
    await expect(quantizeFile(bad.path, out, 'q8_0')).rejects.toThrow();
    const { existsSync, readdirSync } = await import('node:fs');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).some((f) => f.endsWith('.tmp'))).toBe(false);
  });
});

describe('repacked weights', () => {
  // With the engine's own panel kernels off (JEPA_PANEL=0), q4_0 goes to ggml's repacking buffer.
  it('q4_0 matrices load into the CPU repacking buffer and compute as the mapped ones do', async () => {
    const src = forgeModel('vjepa2', { path: join(tmp, 'repack-src.gguf'), edit: (h) => ({ ...h, enc: { ...h.enc, ffnDim: 64 } }) });
    const out = join(tmp, 'repack-q4_0.gguf');
    await quantizeFile(src.path, out, 'q4_0');
    const repacked = await withEnv({ JEPA_PANEL: '0' }, () => Model.load(out, { threads: 2 }));
    expect(repacked.weights.get('enc.blk.0.attn.qkv.weight').bufferType).toBe('CPU_REPACK');
    expect(repacked.weights.get('enc.blk.0.attn.qkv.weight').repacked).toBe(true);
    expect(repacked.weights.get('enc.blk.0.ln1.weight').bufferType).toBe('CPU_Mapped');
    const plain = await withEnv({ JEPA_REPACK: '0', JEPA_PANEL: '0' }, () => Model.load(out, { threads: 2 }));
    expect(plain.weights.get('enc.blk.0.attn.qkv.weight').bufferType).toBe('CPU_Mapped');
    const data = Float32Array.from({ length: 3 * 4 * 8 * 8 }, (_, i) => Math.sin(i * 0.31));
    const a = await repacked.createContext().encode({ data, shape: [1, 3, 4, 8, 8] });
    const b = await plain.createContext().encode({ data, shape: [1, 3, 4, 8, 8] });
    expect(cosine(a.tokens, b.tokens)).toBeGreaterThan(0.99999);
    repacked.dispose();
    plain.dispose();
  });
});
