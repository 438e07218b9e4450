import { readFileSync, writeFileSync } from 'node:fs';
import { PreprocessError } from './errors.js';

export type NpyDtype = 'float32' | 'uint8' | 'int64';
export type NpyData = Float32Array | Uint8Array | BigInt64Array;

export interface NpyArray {
  dtype: NpyDtype;
  shape: number[];
  data: NpyData;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const DESCR_OF: Record<NpyDtype, string> = { float32: '<f4', uint8: '|u1', int64: '<i8' };
const DTYPE_OF_DESCR: Record<string, NpyDtype> = {
  '<f4': 'float32',
  '|u1': 'uint8',
  '<u1': 'uint8',
  '|i8': 'int64',
  '<i8': 'int64',
};
const ITEM_BYTES: Record<NpyDtype, number> = { float32: 4, uint8: 1, int64: 8 };

function dtypeOfArray(data: NpyData): NpyDtype {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Uint8Array) return 'uint8';
  if (data instanceof BigInt64Array) return 'int64';
  throw new PreprocessError('npy_unsupported', 'encodeNpy: only Float32Array, Uint8Array and BigInt64Array are supported');
}

function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new PreprocessError('shape_mismatch', `npy: invalid dimension ${d} in shape (${shape.join(', ')})`);
    }
    n *= d;
  }
  return n;
}

/**
 * The .npy (format 1.0) header for a C-order little-endian array: magic, version, length and the
 * padded dict. `minBytes` pads it further, so that a streaming writer can rewrite the row count in place.
 */
export function npyHeader(dtype: NpyDtype, shape: readonly number[], minBytes = 0): Uint8Array {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${DESCR_OF[dtype]}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Magic (6) + version (2) + header length (2) + header, padded with spaces and a final \n to a multiple of 64.
  const unpadded = Math.max(10 + header.length + 1, minBytes);
  header += ' '.repeat(unpadded - 10 - header.length - 1);
  header += `${' '.repeat((64 - (unpadded % 64)) % 64)}\n`;
  if (header.length > 0xffff) throw new PreprocessError('npy_unsupported', 'npy: header too long for format 1.0');
  const out = new Uint8Array(10 + header.length);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  out[8] = header.length & 0xff;
  out[9] = header.length >> 8;
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  return out;
}

/** Serialises a C-order little-endian array as an .npy (format 1.0) file image. */
export function encodeNpy(data: NpyData, shape: readonly number[]): Uint8Array {
  const dtype = dtypeOfArray(data);
  const count = elementCount(shape);
  if (count !== data.length) {
    throw new PreprocessError('shape_mismatch', `encodeNpy: shape (${shape.join(', ')}) holds ${count} elements but the array has ${data.length}`);
  }
  const header = npyHeader(dtype, shape);
  const payload = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(header.length + payload.length);
  out.set(header, 0);
  out.set(payload, header.length);
  return out;
}

export function writeNpy(path: string, data: NpyData, shape: readonly number[]): void {
  writeFileSync(path, encodeNpy(data, shape));
}

function headerField(header: string, key: string): string {
  const match = new RegExp(`['"]${key}['"]\\s*:\\s*`).exec(header);
  if (!match) throw new PreprocessError('npy_corrupt', `npy: header has no '${key}' entry: ${header.trim()}`);
  return header.slice(match.index + match[0].length);
}

function parseHeader(header: string): { dtype: NpyDtype; shape: number[] } {
  const descrMatch = /^['"]([^'"]*)['"]/.exec(headerField(header, 'descr'));
  if (!descrMatch) throw new PreprocessError('npy_corrupt', `npy: unreadable descr in header ${header.trim()}`);
  const dtype = DTYPE_OF_DESCR[descrMatch[1]];
  if (dtype === undefined) {
    throw new PreprocessError(
      'npy_unsupported',
      `npy: dtype '${descrMatch[1]}' is not supported (only little-endian float32 '<f4', uint8 '|u1', int64 '<i8')`,
    );
  }
  const fortran = /^(True|False)/.exec(headerField(header, 'fortran_order'));
  if (!fortran) throw new PreprocessError('npy_corrupt', `npy: unreadable fortran_order in header ${header.trim()}`);
  if (fortran[1] === 'True') {
    throw new PreprocessError('npy_unsupported', 'npy: fortran_order True is not supported; save the array in C order');
  }
  const shapeMatch = /^\(([^)]*)\)/.exec(headerField(header, 'shape'));
  if (!shapeMatch) throw new PreprocessError('npy_corrupt', `npy: unreadable shape in header ${header.trim()}`);
  const shape = shapeMatch[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      if (!/^\d+$/.test(s)) throw new PreprocessError('npy_corrupt', `npy: bad dimension '${s}' in shape`);
      return Number(s);
    });
  return { dtype, shape };
}

/** The dtype, shape and data offset of an .npy file image, from its first bytes. */
export function parseNpyHeader(bytes: Uint8Array): { dtype: NpyDtype; shape: number[]; dataStart: number } {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new PreprocessError('npy_corrupt', 'npy: missing \\x93NUMPY magic');
  }
  const major = bytes[6];
  let headerStart: number;
  let headerLen: number;
  if (major === 1) {
    headerStart = 10;
    headerLen = bytes[8] | (bytes[9] << 8);
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new PreprocessError('npy_corrupt', 'npy: truncated header');
    headerStart = 12;
    headerLen = (bytes[8] | (bytes[9] << 8) | (bytes[10] << 16)) + bytes[11] * 0x1000000;
  } else {
    throw new PreprocessError('npy_unsupported', `npy: format version ${major}.${bytes[7]} is not supported`);
  }
  const dataStart = headerStart + headerLen;
  if (dataStart > bytes.length) throw new PreprocessError('npy_corrupt', 'npy: header runs past the end of the file');
  const header = new TextDecoder('latin1').decode(bytes.subarray(headerStart, dataStart));
  return { ...parseHeader(header), dataStart };
}

/** Reads an .npy file (or its bytes); the returned data is a fresh, aligned copy. */
export function readNpy(pathOrBytes: string | Uint8Array): NpyArray {
  const bytes = typeof pathOrBytes === 'string' ? readFileSync(pathOrBytes) : pathOrBytes;
  const { dtype, shape, dataStart } = parseNpyHeader(bytes);
  const count = elementCount(shape);
  const byteLength = count * ITEM_BYTES[dtype];
  if (dataStart + byteLength > bytes.length) {
    throw new PreprocessError(
      'npy_corrupt',
      `npy: shape (${shape.join(', ')}) of ${dtype} needs ${byteLength} data bytes, file has ${bytes.length - dataStart}`,
    );
  }
  // A fresh buffer: Buffer.slice would alias the file and its offset need not be aligned for the element type.
  const raw = new Uint8Array(byteLength);
  raw.set(bytes.subarray(dataStart, dataStart + byteLength));
  const data: NpyData =
    dtype === 'float32'
      ? new Float32Array(raw.buffer, raw.byteOffset, count)
      : dtype === 'int64'
        ? new BigInt64Array(raw.buffer, raw.byteOffset, count)
        : new Uint8Array(raw.buffer, raw.byteOffset, count);
  return { dtype, shape, data };
}
