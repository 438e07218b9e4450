// Builds checkpoints the reference fixtures lack (a full LeWM file, a V-JEPA 2 classifier) as safetensors
// from real fixture tensors plus seeded extra ones, to check that the mappings meet the schema.
import { writeFileSync } from 'node:fs';
import { openCheckpoint } from '../src/index.js';
import { safetensorsBytes } from './fixtures.js';

export interface RawTensor {
  shape: readonly number[];
  data: Float32Array;
}

export async function tensorsOf(path: string): Promise<Map<string, RawTensor>> {
  const ck = await openCheckpoint(path);
  const out = new Map<string, RawTensor>();
  for (const [name, ref] of ck.tensors) if (ref.dtype === 'f32') out.set(name, { shape: ref.shape, data: await ref.readAsFloat32() });
  await ck.close();
  return out;
}

/** Deterministic values in [-0.5, 0.5) (an LCG), so a failing case can be reproduced. */
export function seeded(shape: readonly number[], seed: number, offset = 0): RawTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s / 2 ** 32 - 0.5 + offset;
  }
  return { shape, data };
}

export function writeSafetensors(path: string, tensors: ReadonlyMap<string, RawTensor>): void {
  const header: Record<string, unknown> = {};
  let at = 0;
  for (const [name, t] of tensors) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [at, at + t.data.byteLength] };
    at += t.data.byteLength;
  }
  const data = new Uint8Array(at);
  let off = 0;
  for (const t of tensors.values()) {
    data.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), off);
    off += t.data.byteLength;
  }
  writeFileSync(path, safetensorsBytes(header, data));
}
