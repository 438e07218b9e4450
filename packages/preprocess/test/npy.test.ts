import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeNpy, PreprocessError, readNpy, writeNpy } from '../src/index.js';
import { fixturePath } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-npy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function npyWithHeader(header: string, payload: Uint8Array): Uint8Array {
  const padded = `${header}${' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64)}\n`;
  const out = new Uint8Array(10 + padded.length + payload.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, padded.length & 255, padded.length >> 8]);
  out.set(new TextEncoder().encode(padded), 10);
  out.set(payload, 10 + padded.length);
  return out;
}

describe('npy', () => {
  it('round-trips float32, uint8 and int64 through a file', () => {
    const cases = [
      { data: new Float32Array([1.5, -2, 3.25, Number.POSITIVE_INFINITY, 0, 1e-30]), shape: [2, 3] },
      { data: new Uint8Array([0, 1, 254, 255]), shape: [4] },
      { data: new BigInt64Array([-1n, 2n ** 40n, 0n]), shape: [3, 1] },
      { data: new Float32Array(0), shape: [0, 5] },
    ];
    for (const [i, c] of cases.entries()) {
      const path = join(dir, `a${i}.npy`);
      writeNpy(path, c.data, c.shape);
      const bytes = readFileSync(path);
      expect((bytes.length - c.data.byteLength) % 64).toBe(0);
      const back = readNpy(path);
      expect(back.shape).toEqual(c.shape);
      expect(back.data).toEqual(c.data);
    }
  });

  it('writes the header numpy writes', () => {
    const bytes = encodeNpy(new Float32Array(6), [2, 3]);
    const header = new TextDecoder().decode(bytes.subarray(10, 10 + (bytes[8] | (bytes[9] << 8))));
    expect(header.trimEnd()).toBe("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    const u8 = encodeNpy(new Uint8Array(2), [2]);
    expect(new TextDecoder().decode(u8.subarray(10, 10 + (u8[8] | (u8[9] << 8))))).toContain("'descr': '|u1', 'fortran_order': False, 'shape': (2,)");
  });

  it('reads files numpy wrote (a recipe levels table)', () => {
    const arr = readNpy(fixturePath('recipes', 'ijepa_hf_landscape_levels.npy'));
    expect(arr.dtype).toBe('float32');
    expect(arr.shape).toEqual([3, 256]);
  });

  it('refuses Fortran order, big-endian and other dtypes clearly', () => {
    const fortran = npyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", new Uint8Array(4));
    expect(() => readNpy(fortran)).toThrow(/fortran_order True is not supported/);
    const bigEndian = npyWithHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(4));
    expect(() => readNpy(bigEndian)).toThrow(/dtype '>f4' is not supported/);
    const f64 = npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(8));
    expect(() => readNpy(f64)).toThrow(PreprocessError);
  });

  it('refuses truncated data and shape/array mismatches', () => {
    const short = npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", new Uint8Array(20));
    expect(() => readNpy(short)).toThrow(/needs 24 data bytes, file has 20/);
    expect(() => readNpy(new Uint8Array([1, 2, 3]))).toThrow(/magic/);
    expect(() => encodeNpy(new Float32Array(5), [2, 3])).toThrow(/holds 6 elements but the array has 5/);
  });
});
