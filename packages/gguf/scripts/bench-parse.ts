/**
 * Header + tensor-table parse time for a 1000-tensor GGUF, and proof that the reader's memory is O(header):
 * the same table over 4 KiB and 256 KiB tensors (4 MB vs 256 MB files) reads the same bytes and retains the same heap.
 *   pnpm bench:parse [--tensors 1000] [--runs 30]      (run with node --expose-gc for the retained-heap figure)
 */
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fdSource } from '../src/gguf/byte-source.js';
import { readGguf, readGgufFromSource } from '../src/gguf/reader.js';
import { GgmlType } from '../src/ggml-types.js';
import { gv } from '../src/gguf/value.js';
import { GgufWriter } from '../src/gguf/writer.js';
import { cliOptions, positiveNumber } from './args.js';

const opts = cliOptions({ tensors: { type: 'string', default: '1000' }, runs: { type: 'string', default: '30' } });
const nTensors = positiveNumber('tensors', opts.tensors);
const runs = positiveNumber('runs', opts.runs);
const dir = mkdtempSync(join(tmpdir(), 'gguf-bench-'));

function writeFile(path: string, rowsPerTensor: number): void {
  const w = GgufWriter.toFile(path);
  w.setMetadata('general.architecture', gv.str('bench'));
  w.setMetadata('bench.labels', gv.strs(Array.from({ length: 1000 }, (_, i) => `label-${i}`)));
  for (let i = 0; i < nTensors; i++) w.addTensor(`blk.${i}.ffn.fc1.weight`, GgmlType.F32, [1024, rowsPerTensor]);
  const chunk = new Uint8Array(1024 * 4 * rowsPerTensor);
  for (let i = 0; i < nTensors; i++) w.writeTensorData(chunk);
  w.finish();
}

const gc = (globalThis as { gc?: () => void }).gc;
function measure(path: string) {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) readGguf(path);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    readGguf(path);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  let bytesRead = 0;
  let largestRead = 0;
  const inner = fdSource(fd, size);
  gc?.();
  gc?.();
  const before = process.memoryUsage();
  const read = (p: number, n: number) => {
    bytesRead += n;
    largestRead = Math.max(largestRead, n);
    return inner.read(p, n);
  };
  const header = readGgufFromSource({ size, read });
  gc?.();
  gc?.();
  const after = process.memoryUsage();
  closeSync(fd);
  if (header.tensors.length !== nTensors) throw new Error('bench: wrong tensor count');
  return {
    file: `${(size / 2 ** 20).toFixed(1)} MiB`,
    tensors: header.tensors.length,
    headerBytes: header.dataOffset,
    bytesRead,
    largestRead,
    medianMs: times[Math.floor(times.length / 2)].toFixed(2),
    minMs: times[0].toFixed(2),
    retainedHeapKiB: gc ? ((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1024).toFixed(0) : 'run with --expose-gc',
  };
}

try {
  const small = join(dir, 'small.gguf');
  const big = join(dir, 'big.gguf');
  writeFile(small, 1);
  writeFile(big, 64);
  console.table({ '4 KiB tensors': measure(small), '256 KiB tensors': measure(big) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
