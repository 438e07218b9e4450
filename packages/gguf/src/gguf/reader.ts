import { closeSync, fstatSync, openSync } from 'node:fs';
import { GgufError } from '../errors.js';
import { GGML_MAX_DIMS, tensorNbytes } from '../ggml-types.js';
import { bufferSource, Cursor, fdSource, type ByteSource } from './byte-source.js';
import {
  GGML_MAX_NAME, GGUF_DEFAULT_ALIGNMENT, GGUF_KEY_ALIGNMENT, GGUF_MAGIC, GGUF_MAX_ARRAY_ELEMENTS,
  GGUF_MAX_ARRAY_NESTING, GGUF_MAX_STRING_LENGTH, GGUF_VERSION,
} from './constants.js';
import type { GgufHeader, GgufTensorInfo } from './header.js';
import { checkTensorExtents } from './extents.js';
import {
  GGUF_SCALAR_SIZE, typedArrayFromBytes, valueTypeFromTag,
  type GgufArray, type GgufMetadata, type GgufValue, type GgufValueType,
} from './value.js';

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error('@jepa/gguf assumes a little-endian host');
}

/** Smallest encoding of one key/value pair (1-byte key, u8 value) and of one tensor info (1-byte name, 0 dims). */
const MIN_KV_BYTES = 8 + 1 + 4 + 1;
const MIN_TENSOR_INFO_BYTES = 8 + 1 + 4 + 4 + 8;
/** Smallest encoding of one array item of a variable-size type: an empty string, or an empty nested array. */
const MIN_STRING_BYTES = 8;
const MIN_NESTED_ARRAY_BYTES = 4 + 8;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function readGgufFromSource(source: ByteSource): GgufHeader {
  return parse(source);
}

export function readGgufFromBuffer(buffer: Uint8Array): GgufHeader {
  return parse(bufferSource(buffer));
}

/** Parses header, metadata and tensor-info table of a GGUF file; never reads tensor data. */
export function readGguf(file: string | number): GgufHeader {
  if (typeof file === 'number') return parse(fdSource(file, fstatSync(file).size));
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new GgufError('GGUF_IO', `cannot open '${file}': ${(e as Error).message}`);
  }
  try {
    return parse(fdSource(fd, fstatSync(fd).size));
  } finally {
    closeSync(fd);
  }
}

interface PendingTensor {
  name: string;
  type: number;
  shape: number[];
  relOffset: bigint;
  nbytes: bigint;
}

function parse(source: ByteSource): GgufHeader {
  const c = new Cursor(source);
  if (c.size < 4 || c.u32('magic') !== GGUF_MAGIC) {
    throw new GgufError('GGUF_BAD_MAGIC', `not a GGUF file: the first 4 bytes are not 'GGUF'`);
  }
  const version = readVersion(c);
  const nTensors = readCount(c, 'tensor count', MIN_TENSOR_INFO_BYTES);
  const nKv = readCount(c, 'metadata key count', MIN_KV_BYTES);
  const metadata = readMetadata(c, nKv);
  const alignment = readAlignment(metadata);
  const pending = readTensorInfos(c, nTensors);
  const dataOffset = nTensors > 0 ? alignUp(c.pos, alignment) : c.pos;
  if (dataOffset > c.size) {
    throw new GgufError('GGUF_TRUNCATED', `the data section would start at ${dataOffset}, past the file end ${c.size}`);
  }
  const tensors = placeTensors(pending, dataOffset, alignment, c.size);
  const tensorIndex = new Map(tensors.map((t) => [t.name, t]));
  return { version, alignment, metadata, tensors, tensorIndex, dataOffset, fileSize: c.size };
}

function readMetadata(c: Cursor, nKv: number): GgufMetadata {
  const metadata: GgufMetadata = new Map();
  for (let i = 0; i < nKv; i++) {
    const key = c.string(`metadata key #${i}`, GGUF_MAX_STRING_LENGTH);
    if (key.length === 0) throw new GgufError('GGUF_BAD_KEY', `metadata key #${i} is empty`);
    if (metadata.has(key)) throw new GgufError('GGUF_DUPLICATE_KEY', `metadata key '${key}' appears twice`);
    metadata.set(key, readValue(c, key));
  }
  return metadata;
}

function readTensorInfos(c: Cursor, nTensors: number): PendingTensor[] {
  const pending: PendingTensor[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < nTensors; i++) {
    const name = c.string(`tensor name #${i}`, GGUF_MAX_STRING_LENGTH);
    if (name.length === 0 || Buffer.byteLength(name) >= GGML_MAX_NAME) {
      throw new GgufError(
        'GGUF_BAD_TENSOR_NAME',
        `tensor #${i} name '${name.slice(0, 80)}' must have 1..${GGML_MAX_NAME - 1} bytes`,
      );
    }
    if (seen.has(name)) {
      throw new GgufError('GGUF_DUPLICATE_TENSOR', `tensor '${name}' appears twice in the tensor-info table`);
    }
    const nDims = c.u32(`tensor '${name}' n_dims`);
    if (nDims > GGML_MAX_DIMS) {
      throw new GgufError('GGUF_BAD_DIMS', `tensor '${name}' has ${nDims} dims, more than ${GGML_MAX_DIMS}`);
    }
    const shape: number[] = [];
    for (let d = 0; d < nDims; d++) {
      const ne = c.i64(`tensor '${name}' ne[${d}]`);
      if (ne < 0n || ne > MAX_SAFE) {
        throw new GgufError('GGUF_BAD_DIMS', `tensor '${name}' ne[${d}] = ${ne} is outside [0, 2^53-1]`);
      }
      shape.push(Number(ne));
    }
    const type = c.i32(`tensor '${name}' type`);
    const nbytes = tensorNbytes(type, shape, name);
    const relOffset = c.u64(`tensor '${name}' offset`);
    seen.add(name);
    pending.push({ name, type, shape, relOffset, nbytes });
  }
  return pending;
}

/** ggml's rule: tensors are packed in table order, each padded to the alignment; then every byte must be in the file. */
function placeTensors(pending: readonly PendingTensor[], dataOffset: number, alignment: number, fileSize: number): GgufTensorInfo[] {
  let expected = 0n;
  for (const p of pending) {
    if (p.relOffset !== expected) {
      throw new GgufError(
        'GGUF_TENSOR_OFFSET',
        `tensor '${p.name}' has data offset ${p.relOffset}, expected ${expected} (tensors are packed in table order, each padded to ${alignment})`,
      );
    }
    expected += alignUpBig(p.nbytes, BigInt(alignment));
  }
  checkTensorExtents(pending.map((p) => ({ name: p.name, offset: BigInt(dataOffset) + p.relOffset, nbytes: p.nbytes })), fileSize);
  return pending.map((p) => Object.freeze({
    name: p.name,
    type: p.type,
    shape: Object.freeze(p.shape) as readonly number[],
    offset: dataOffset + Number(p.relOffset),
    relativeOffset: Number(p.relOffset),
    nbytes: Number(p.nbytes),
  }));
}

function readVersion(c: Cursor): number {
  const version = c.u32('version');
  if (version === 0 || (version & 0xffff) === 0) {
    throw new GgufError('GGUF_BAD_VERSION', `GGUF version ${version} is invalid (0, or a byte-swapped big-endian file)`);
  }
  if (version === 1 || version > GGUF_VERSION) {
    throw new GgufError('GGUF_BAD_VERSION', `GGUF version ${version} is not supported (2..${GGUF_VERSION})`);
  }
  return version;
}

function readCount(c: Cursor, what: string, minBytesEach: number): number {
  const n = c.i64(what);
  if (n < 0n || n * BigInt(minBytesEach) > BigInt(c.remaining())) {
    throw new GgufError('GGUF_BAD_COUNT', `${what} ${n} is negative or cannot fit in the ${c.remaining()} bytes left`);
  }
  return Number(n);
}

function readAlignment(metadata: GgufMetadata): number {
  const v = metadata.get(GGUF_KEY_ALIGNMENT);
  if (v === undefined) return GGUF_DEFAULT_ALIGNMENT;
  if (v.type !== 'u32') {
    throw new GgufError('GGUF_BAD_ALIGNMENT', `'${GGUF_KEY_ALIGNMENT}' must be u32, found ${v.type}`);
  }
  if (v.value === 0 || (v.value & (v.value - 1)) !== 0) {
    throw new GgufError('GGUF_BAD_ALIGNMENT', `'${GGUF_KEY_ALIGNMENT}' = ${v.value} is not a power of 2`);
  }
  return v.value;
}

function readTypeTag(c: Cursor, what: string): GgufValueType {
  const tag = c.u32(`${what} type`);
  const type = valueTypeFromTag(tag);
  if (type === undefined) throw new GgufError('GGUF_BAD_VALUE_TYPE', `${what} has value type tag ${tag}, not in [0, 12]`);
  return type;
}

function readValue(c: Cursor, key: string): GgufValue {
  const type = readTypeTag(c, `key '${key}'`);
  return type === 'array' ? readArray(c, key, 1) : readScalar(c, type, key);
}

function readScalar(c: Cursor, type: Exclude<GgufValueType, 'array'>, key: string): GgufValue {
  const what = `value of '${key}'`;
  switch (type) {
    case 'u8': return { type, value: c.u8(what) };
    case 'i8': return { type, value: c.i8(what) };
    case 'u16': return { type, value: c.u16(what) };
    case 'i16': return { type, value: c.i16(what) };
    case 'u32': return { type, value: c.u32(what) };
    case 'i32': return { type, value: c.i32(what) };
    case 'f32': return { type, value: c.f32(what) };
    case 'f64': return { type, value: c.f64(what) };
    case 'u64': return { type, value: c.u64(what) };
    case 'i64': return { type, value: c.i64(what) };
    case 'bool': return { type, value: readBool(c, what) };
    case 'string': return { type, value: c.string(what, GGUF_MAX_STRING_LENGTH) };
  }
}

function readBool(c: Cursor, what: string): boolean {
  const b = c.u8(what);
  if (b > 1) throw new GgufError('GGUF_BAD_VALUE_TYPE', `${what} is a bool stored as ${b}, not 0 or 1`);
  return b === 1;
}

function readArray(c: Cursor, key: string, depth: number): GgufArray {
  if (depth > GGUF_MAX_ARRAY_NESTING) {
    throw new GgufError('GGUF_NESTING_TOO_DEEP', `array '${key}' nests deeper than ${GGUF_MAX_ARRAY_NESTING} levels`);
  }
  const itemType = readTypeTag(c, `array '${key}' item`);
  const n = c.u64(`array '${key}' length`);
  if (n > BigInt(GGUF_MAX_ARRAY_ELEMENTS)) {
    throw new GgufError('GGUF_ARRAY_TOO_LONG', `array '${key}' has ${n} items, above the limit ${GGUF_MAX_ARRAY_ELEMENTS}`);
  }
  const count = Number(n);
  const minItem = GGUF_SCALAR_SIZE[itemType] ?? (itemType === 'string' ? MIN_STRING_BYTES : MIN_NESTED_ARRAY_BYTES);
  if (count * minItem > c.remaining()) {
    throw new GgufError(
      'GGUF_TRUNCATED',
      `array '${key}' of ${count} ${itemType} items needs at least ${count * minItem} bytes, the file has ${c.remaining()} left`,
    );
  }
  switch (itemType) {
    case 'string': {
      const value: string[] = [];
      for (let i = 0; i < count; i++) value.push(c.string(`'${key}'[${i}]`, GGUF_MAX_STRING_LENGTH));
      return { type: 'array', itemType, value };
    }
    case 'bool': {
      const value: boolean[] = [];
      for (let i = 0; i < count; i++) value.push(readBool(c, `'${key}'[${i}]`));
      return { type: 'array', itemType, value };
    }
    case 'array': {
      const value: GgufArray[] = [];
      for (let i = 0; i < count; i++) value.push(readArray(c, `${key}[${i}]`, depth + 1));
      return { type: 'array', itemType, value };
    }
    default: {
      const bytes = c.bytes(count * (GGUF_SCALAR_SIZE[itemType] as number), `array '${key}'`);
      return { type: 'array', itemType, value: typedArrayFromBytes(itemType, bytes) };
    }
  }
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function alignUpBig(n: bigint, alignment: bigint): bigint {
  return ((n + alignment - 1n) / alignment) * alignment;
}
