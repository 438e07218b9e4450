import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GgufError } from '../src/errors.js';
import { GGML_TYPES, GgmlType, ggmlTypeByName, ggmlTypeInfo, tensorNbytes } from '../src/ggml-types.js';
import { fdSource } from '../src/gguf/byte-source.js';
import { readGguf, readGgufFromSource } from '../src/gguf/reader.js';
import { gv } from '../src/gguf/value.js';
import { GgufWriter } from '../src/gguf/writer.js';

describe('ggml type table', () => {
  it('has the 43 ids of the pinned ggml, with the removed ones unsupported', () => {
    expect(GGML_TYPES).toHaveLength(43);
    for (const [i, t] of GGML_TYPES.entries()) expect(t.id).toBe(i);
    expect(GGML_TYPES.filter((t) => !t.supported).map((t) => t.id)).toEqual([4, 5, 31, 32, 33, 36, 37, 38]);
    expect(ggmlTypeByName('Q4_K')).toMatchObject({ id: 12, blockSize: 256, typeSize: 144, isQuantized: true });
    expect(ggmlTypeInfo(GgmlType.BF16)).toMatchObject({ name: 'bf16', blockSize: 1, typeSize: 2, isQuantized: false });
  });

  it('tensorNbytes counts blocks and refuses overflow, partial blocks and removed types', () => {
    expect(tensorNbytes(GgmlType.Q8_0, [64, 3])).toBe(2n * 3n * 34n);
    expect(tensorNbytes(GgmlType.F32, [])).toBe(4n);
    expect(tensorNbytes(GgmlType.F32, [0, 5])).toBe(0n);
    const code = (f: () => unknown) => {
      try {
        f();
        return 'none';
      } catch (e) {
        return (e as GgufError).code;
      }
    };
    expect(code(() => tensorNbytes(GgmlType.F32, [2 ** 32, 2 ** 32]))).toBe('GGUF_TENSOR_TOO_LARGE');
    expect(code(() => tensorNbytes(GgmlType.F64, [2 ** 31, 2 ** 30]))).toBe('GGUF_TENSOR_TOO_LARGE');
    expect(code(() => tensorNbytes(GgmlType.Q4_K, [255]))).toBe('GGUF_BAD_BLOCK');
    expect(code(() => tensorNbytes(33, [32]))).toBe('GGUF_BAD_TENSOR_TYPE');
    expect(code(() => tensorNbytes(43, [32]))).toBe('GGUF_BAD_TENSOR_TYPE');
  });
});

describe('reader on files', () => {
  function bigFile(rows: number): string {
    const path = join(mkdtempSync(join(tmpdir(), 'gguf-big-')), 'big.gguf');
    const w = GgufWriter.toFile(path);
    w.setMetadata('general.architecture', gv.str('test'));
    for (let i = 0; i < 300; i++) w.addTensor(`blk.${i}.w`, GgmlType.F32, [1024, rows]);
    const chunk = new Uint8Array(4096 * rows);
    for (let i = 0; i < 300; i++) w.writeTensorData(chunk);
    w.finish();
    return path;
  }

  it('reads only the header of a large file, by path and by fd: memory O(header), not O(file)', () => {
    const path = bigFile(32);
    const fd = openSync(path, 'r');
    try {
      const h = readGguf(fd);
      expect(h.fileSize).toBe(300 * 4096 * 32 + h.dataOffset);
      let bytesRead = 0;
      const inner = fdSource(fd, h.fileSize);
      const read = (p: number, n: number) => {
        bytesRead += n;
        return inner.read(p, n);
      };
      readGgufFromSource({ size: h.fileSize, read });
      expect(h.dataOffset).toBeLessThan(16 * 1024);
      expect(bytesRead).toBeLessThanOrEqual(h.dataOffset + 64 * 1024);
      expect(bytesRead).toBeLessThan(h.fileSize / 500);
      expect(readGguf(path).tensors).toEqual(h.tensors);
      expect(h.tensors[299]).toMatchObject({ offset: h.dataOffset + 299 * 4096 * 32, nbytes: 4096 * 32 });
    } finally {
      closeSync(fd);
    }
  });

  it('refuses a missing file with GGUF_IO', () => {
    expect(() => readGguf('/nonexistent/model.gguf')).toThrow(expect.objectContaining({ code: 'GGUF_IO' }) as unknown as Error);
  });
});
