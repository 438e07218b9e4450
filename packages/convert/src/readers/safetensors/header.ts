import { ConvertError } from '../../errors.js';
import { DTYPE_BYTES, elementCount, type TensorDType } from '../dtypes.js';

const DTYPES: Readonly<Record<string, TensorDType>> = {
  F64: 'f64',
  F32: 'f32',
  F16: 'f16',
  BF16: 'bf16',
  I64: 'i64',
  I32: 'i32',
  I16: 'i16',
  I8: 'i8',
  U64: 'u64',
  U32: 'u32',
  U16: 'u16',
  U8: 'u8',
  BOOL: 'bool',
};

// Valid safetensors dtypes this reader does not decode (yet); named so the refusal is precise.
const UNSUPPORTED_DTYPES = new Set(['F8_E4M3', 'F8_E5M2', 'F8_E8M0', 'F6_E2M3', 'F6_E3M2', 'F4', 'C64']);

// The reference implementation's bound; a larger header is an attack, not a model.
export const MAX_SAFETENSORS_HEADER = 100_000_000;

export interface SafetensorsEntry {
  name: string;
  dtype: TensorDType;
  shape: number[];
  /** Byte range relative to the start of the data section. */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  /** Absolute file offset of the data section (8 + header length). */
  dataOffset: number;
  dataSize: number;
  metadata: Record<string, string>;
  /** In header order. */
  entries: SafetensorsEntry[];
}

/** The u64 little-endian header length at the start of a safetensors file, range-checked. */
export function readHeaderLength(prefix: Uint8Array, fileSize: number, what: string): number {
  if (fileSize < 8 || prefix.byteLength < 8)
    throw new ConvertError('CONVERT_TRUNCATED', `${what}: ${fileSize} bytes is too short for a safetensors header`);
  const length = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (length > BigInt(MAX_SAFETENSORS_HEADER)) {
    throw new ConvertError('SAFETENSORS_HEADER_TOO_LARGE', `${what}: header length ${length} exceeds ${MAX_SAFETENSORS_HEADER} bytes`);
  }
  if (Number(length) > fileSize - 8) {
    throw new ConvertError('SAFETENSORS_HEADER_OUT_OF_FILE', `${what}: header length ${length} runs past the end of the file (${fileSize} bytes)`);
  }
  return Number(length);
}

/**
 * Parses and validates a safetensors header. `bytes` holds the file's first 8 + N bytes at least
 * (the whole file is fine); `fileSize` is the length of the whole file.
 */
export function readSafetensorsHeader(bytes: Uint8Array, fileSize = bytes.byteLength, what = 'safetensors'): SafetensorsHeader {
  const length = readHeaderLength(bytes, fileSize, what);
  if (bytes.byteLength < 8 + length)
    throw new ConvertError('CONVERT_TRUNCATED', `${what}: the header needs ${8 + length} bytes, got ${bytes.byteLength}`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + length)));
  } catch (cause) {
    throw new ConvertError('SAFETENSORS_BAD_HEADER', `${what}: the header is not valid UTF-8 JSON (${(cause as Error).message})`, { cause });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConvertError('SAFETENSORS_BAD_HEADER', `${what}: the header is not a JSON object`);
  }
  const dataOffset = 8 + length;
  const dataSize = fileSize - dataOffset;
  let metadata: Record<string, string> = {};
  const entries: SafetensorsEntry[] = [];
  for (const [name, value] of Object.entries(json)) {
    if (name === '__metadata__') metadata = parseMetadata(value, what);
    else entries.push(parseEntry(name, value, dataSize, what));
  }
  checkLayout(entries, dataSize, what);
  return { dataOffset, dataSize, metadata, entries };
}

function parseMetadata(value: unknown, what: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConvertError('SAFETENSORS_BAD_METADATA', `${what}: __metadata__ is not an object`);
  }
  const metadata: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new ConvertError('SAFETENSORS_BAD_METADATA', `${what}: __metadata__.${key} is not a string`);
    metadata[key] = v;
  }
  return metadata;
}

function parseEntry(name: string, value: unknown, dataSize: number, what: string): SafetensorsEntry {
  const where = `${what}: tensor '${name}'`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where} is not an object`);
  const { dtype: rawDtype, shape, data_offsets: offsets } = value as Record<string, unknown>;
  if (typeof rawDtype !== 'string') throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where} has no dtype string`);
  if (UNSUPPORTED_DTYPES.has(rawDtype))
    throw new ConvertError('CONVERT_UNSUPPORTED_DTYPE', `${where} has dtype ${rawDtype}, which this reader does not decode`);
  const dtype = Object.hasOwn(DTYPES, rawDtype) ? DTYPES[rawDtype] : undefined;
  if (dtype === undefined) throw new ConvertError('CONVERT_UNKNOWN_DTYPE', `${where} has unknown dtype ${JSON.stringify(rawDtype)}`);
  if (!Array.isArray(shape)) throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where} has no shape array`);
  const count = elementCount(shape as number[], where);
  const [begin, end] = dataOffsets(offsets, where, dataSize);
  const expected = count * DTYPE_BYTES[dtype];
  if (end - begin !== expected) {
    throw new ConvertError(
      'SAFETENSORS_SIZE_MISMATCH',
      `${where}: shape [${shape.join(', ')}] x ${rawDtype} is ${expected} bytes but data_offsets span ${end - begin}`,
    );
  }
  return { name, dtype, shape: [...(shape as number[])], begin, end };
}

/**
 * `data_offsets` as [begin, end], each refusal saying which rule broke: not a pair of integers, a
 * negative one, one past what a file can address, reversed, or past the data section.
 */
function dataOffsets(offsets: unknown, where: string, dataSize: number): [number, number] {
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => typeof o === 'number' && Number.isInteger(o))) {
    throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where} has data_offsets ${JSON.stringify(offsets)}, not a pair of integers`);
  }
  const [begin, end] = offsets as [number, number];
  if (begin < 0 || end < 0) throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where} has a negative data_offset in [${begin}, ${end}]`);
  if (!Number.isSafeInteger(begin) || !Number.isSafeInteger(end)) {
    throw new ConvertError(
      'SAFETENSORS_OFFSETS_OUT_OF_DATA',
      `${where}: data_offsets [${begin}, ${end}] exceed 2^53 - 1, the largest offset read (the data section has ${dataSize} bytes)`,
    );
  }
  if (end < begin)
    throw new ConvertError('SAFETENSORS_BAD_ENTRY', `${where}: data_offsets [${begin}, ${end}] are reversed (the end is before the begin)`);
  if (end > dataSize) {
    throw new ConvertError(
      'SAFETENSORS_OFFSETS_OUT_OF_DATA',
      `${where}: data_offsets [${begin}, ${end}] end past the data section (${dataSize} bytes)`,
    );
  }
  return [begin, end];
}

/** As in the reference implementation: the tensors tile the data section exactly, no overlap, no hole. */
function checkLayout(entries: readonly SafetensorsEntry[], dataSize: number, what: string): void {
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let cursor = 0;
  for (const entry of sorted) {
    if (entry.begin < cursor) {
      throw new ConvertError(
        'SAFETENSORS_OFFSETS_OVERLAP',
        `${what}: tensor '${entry.name}' at [${entry.begin}, ${entry.end}] overlaps bytes before ${cursor}`,
      );
    }
    if (entry.begin > cursor) {
      throw new ConvertError(
        'SAFETENSORS_OFFSETS_GAP',
        `${what}: bytes [${cursor}, ${entry.begin}) before tensor '${entry.name}' belong to no tensor`,
      );
    }
    cursor = entry.end;
  }
  if (cursor !== dataSize) {
    throw new ConvertError('SAFETENSORS_OFFSETS_GAP', `${what}: the data section has ${dataSize} bytes but the tensors cover ${cursor}`);
  }
}
