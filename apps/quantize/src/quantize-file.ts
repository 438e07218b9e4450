// Streams a model into a re-typed copy: header first, then each tensor read, converted by ggml's
// own quantizers and written, so memory stays about one tensor. Written to a temporary name and
// renamed at the end. q8_row is quantized here (row-int8.ts), each i8 weight followed by its scales.
import { closeSync, openSync, readSync } from 'node:fs';
import { GgmlType, GgufWriter, gv, loadModelSpec, rowScaleName, type ModelSpec } from '@jepa/gguf';
import { dequantizeRow, quantizeRows } from '@jepa/native';
import { FILE_TYPE, planQuantization, type Target } from './plan.js';
import { quantizeRowsInt8 } from './row-int8.js';

export interface QuantizeResult {
  spec: ModelSpec;
  fallbacks: string[];
  changed: number;
  bytesIn: number;
  bytesOut: number;
}

function readBytes(fd: number, offset: number, length: number): Uint8Array {
  const buf = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, offset + done);
    if (n === 0) throw new Error(`unexpected end of file at byte ${offset + done}`);
    done += n;
  }
  return buf;
}

export async function quantizeFile(
  input: string,
  output: string,
  target: Target,
  keep: readonly string[] = [],
  progress: (done: number, total: number, name: string) => void = () => {},
): Promise<QuantizeResult> {
  const spec = loadModelSpec(input);
  const { plans, fallbacks } = planQuantization(spec, target, keep);
  const writer = GgufWriter.toFile(output, { alignment: spec.header.alignment });
  const fd = openSync(input, 'r');
  try {
    for (const [key, value] of spec.header.metadata) if (key !== 'general.alignment') writer.setMetadata(key, value);
    writer.setMetadata('general.file_type', gv.u32(FILE_TYPE[target]));
    // the writer takes tensor data in declaration order: each i8 weight, then its scales
    for (const p of plans) {
      writer.addTensor(p.name, p.to, p.shape);
      if (p.rowScale) writer.addTensor(rowScaleName(p.name), GgmlType.F32, [p.shape[1]!]);
    }
    let changed = 0;
    for (const [i, p] of plans.entries()) {
      const info = spec.tensors.get(p.name)!;
      const raw = readBytes(fd, info.offset, info.nbytes);
      if (p.to === p.from) {
        writer.writeTensorData(raw);
      } else {
        const count = p.shape.reduce((a, b) => a * b, 1);
        const values = p.from === GgmlType.F32 ? new Float32Array(raw.buffer, raw.byteOffset, count) : dequantizeRow(p.from, raw, count);
        if (p.rowScale) {
          const { q, scale } = quantizeRowsInt8(values, p.shape[0]!, p.shape[1]!, p.name);
          writer.writeTensorData(q);
          writer.writeTensorData(scale);
        } else {
          writer.writeTensorData(await quantizeRows(p.to, values, count / p.shape[0]!, p.shape[0]!));
        }
        changed++;
      }
      progress(i + 1, plans.length, p.name);
    }
    const result = writer.finish();
    return { spec, fallbacks, changed, bytesIn: spec.header.fileSize, bytesOut: result.size };
  } catch (err) {
    writer.abort();
    throw err;
  } finally {
    closeSync(fd);
  }
}
