import { ByteBuilder } from '../src/gguf/byte-builder.js';
import type { GgufValue } from '../src/gguf/value.js';

/** A GGUF assembled field by field with no checks at all, to forge container-level defects the writer refuses. */
export interface RawTensor {
  name: string;
  shape: (number | bigint)[];
  type: number;
  offset: bigint;
}

export function rawGguf(opts: {
  magic?: number;
  version?: number;
  nTensors?: bigint;
  nKv?: bigint;
  kvs?: [string, GgufValue][];
  /** Raw bytes in place of the encoded metadata section. */
  kvBytes?: Uint8Array;
  tensors?: RawTensor[];
  alignment?: number;
  dataBytes?: number;
}): Uint8Array {
  const b = new ByteBuilder();
  const kvs = opts.kvs ?? [];
  const tensors = opts.tensors ?? [];
  b.u32(opts.magic ?? 0x46554747);
  b.u32(opts.version ?? 3);
  b.i64(opts.nTensors ?? BigInt(tensors.length));
  b.i64(opts.nKv ?? BigInt(kvs.length));
  if (opts.kvBytes) b.raw(opts.kvBytes);
  for (const [k, v] of kvs) {
    b.string(k);
    b.value(k, v);
  }
  for (const t of tensors) {
    b.string(t.name);
    b.u32(t.shape.length);
    for (const d of t.shape) b.i64(BigInt(d));
    b.i32(t.type);
    b.u64(t.offset);
  }
  const align = opts.alignment ?? 32;
  b.zeros((align - (b.length % align)) % align);
  b.zeros(opts.dataBytes ?? 0);
  return b.bytes().slice();
}
