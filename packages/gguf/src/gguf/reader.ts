import { closeSync, fstatSync, openSync } from 'node:fs';
import { GGUF_MAX_KEY_LENGTH, UNUSED_VALUE_MAX_BYTES, maxMetaItems } from '../budgets.js';
import { GgufError } from '../errors.js';
import { GGML_MAX_DIMS, ggmlTypeInfo, tensorNbytes } from '../ggml-types.js';
import { bufferSource, Cursor, fdSource, type ByteSource } from './byte-source.js';
import {
  GGML_MAX_NAME,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_KEY_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_MAX_ARRAY_ELEMENTS,
  GGUF_MAX_ARRAY_NESTING,
  GGUF_MAX_STRING_LENGTH,
  GGUF_VERSION,
} from './constants.js';
import type { GgufHeader, GgufSkippedValue, GgufTensorInfo } from './header.js';
import { checkTensorExtents } from './extents.js';
import {
  GGUF_SCALAR_SIZE,
  typedArrayOwning,
  valueTypeFromTag,
  type GgufArray,
  type GgufMetadata,
  type GgufNumberType,
  type GgufBigType,
  type GgufValue,
  type GgufValueType,
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
/**
 * A count up to this is taken as honest: when the bytes run out before its entries do, the file is truncated and
 * the refusal says where. A larger count that cannot fit in the bytes left is refused as a bad count.
 */
const PLAUSIBLE_COUNT = 2 ** 20;
/** Tensor names are read (to be shown in the refusal) only up to this length. */
const SHOWN_NAME_BYTES = 1024;

/** What the reader knows of a top-level value before reading its body: enough to cost it. */
export interface GgufValueHead {
  readonly key: string;
  readonly type: GgufValueType;
  /** Arrays: item type and item count (the count already checked against the bytes left). */
  readonly itemType?: GgufValueType;
  readonly count?: number;
  /** Strings: the byte length (already checked against the bytes left). */
  readonly byteLength?: number;
}

/**
 * 'read' materialises the value; 'skip' walks past it by its byte extent and lists it in `header.skipped`;
 * 'read-small' reads it when the whole value takes at most UNUSED_VALUE_MAX_BYTES, else skips it, or throws
 * `onLarge(nbytes)` when given.
 */
export type GgufValueAction = 'read' | 'skip' | 'read-small';

export interface GgufValueDecision {
  readonly action: GgufValueAction;
  /** Strings inside an array read by this decision may have at most this many bytes each. */
  readonly maxItemLength?: number;
  readonly onLarge?: (nbytes: number) => GgufError;
}

export interface ReadOptions {
  /** Decides, from its head alone, what happens to each top-level value; it may throw a GgufError to refuse. */
  readonly onValue?: (head: GgufValueHead) => GgufValueAction | GgufValueDecision;
}

export function readGgufFromSource(source: ByteSource, options: ReadOptions = {}): GgufHeader {
  return parse(source, options);
}

export function readGgufFromBuffer(buffer: Uint8Array, options: ReadOptions = {}): GgufHeader {
  return parse(bufferSource(buffer), options);
}

/** Parses header, metadata and tensor-info table of a GGUF file; never reads tensor data. */
export function readGguf(file: string | number, options: ReadOptions = {}): GgufHeader {
  if (typeof file === 'number') return parse(fdSource(file, fstatSync(file).size), options);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new GgufError('GGUF_IO', `cannot open '${file}': ${(e as Error).message}`);
  }
  try {
    return parse(fdSource(fd, fstatSync(fd).size), options);
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

/** Says where a truncation happened: "truncated inside the kv section (key 3 of 17, 'jepa.enc.n_layer'): …". */
function truncatedInside(e: unknown, where: string): unknown {
  if (e instanceof GgufError && e.code === 'GGUF_TRUNCATED' && !e.message.startsWith('truncated inside')) {
    return new GgufError('GGUF_TRUNCATED', `truncated inside ${where}: ${e.message}`);
  }
  return e;
}

function parse(source: ByteSource, options: ReadOptions): GgufHeader {
  const c = new Cursor(source);
  if (c.size < 4 || c.u32('magic') !== GGUF_MAGIC) {
    throw new GgufError('GGUF_BAD_MAGIC', `not a GGUF file: the first 4 bytes are not 'GGUF'`);
  }
  let version: number;
  let nTensors: bigint;
  let nKv: bigint;
  try {
    version = readVersion(c);
    nTensors = c.i64('tensor count');
    nKv = c.i64('metadata key count');
  } catch (e) {
    throw truncatedInside(e, `the 24-byte file header (magic, version, tensor count, key count)`);
  }
  refuseNegative(nTensors, 'tensor count');
  refuseNegative(nKv, 'metadata key count');
  const kvCount = checkCount(c, nKv, 'metadata key count', MIN_KV_BYTES);
  const { metadata, skipped } = readMetadata(c, kvCount, options);
  const alignment = readAlignment(metadata);
  const tensorCount = checkCount(c, nTensors, 'tensor count', MIN_TENSOR_INFO_BYTES);
  const pending = readTensorInfos(c, tensorCount);
  const dataOffset = tensorCount > 0 ? alignUp(c.pos, alignment) : c.pos;
  if (dataOffset > c.size) {
    throw new GgufError('GGUF_TRUNCATED', `truncated before the data section: it would start at ${dataOffset}, past the file end ${c.size}`);
  }
  const tensors = placeTensors(pending, dataOffset, alignment, c.size);
  const tensorIndex = new Map(tensors.map((t) => [t.name, t]));
  return { version, alignment, metadata, skipped, tensors, tensorIndex, dataOffset, fileSize: c.size };
}

/** JS items (strings, bools, nested arrays) materialised so far, against JEPA_MAX_META_ITEMS. */
class ItemBudget {
  used = 0;
  private max = -1;

  take(count: number, key: string, itemType: GgufValueType): void {
    // maxMetaItems() is at most V8_SAFE_ARRAY_LENGTH, so no JS array built here comes near V8's own limit
    if (this.max < 0) this.max = maxMetaItems();
    if (this.used + count > this.max) {
      throw new GgufError(
        'GGUF_ARRAY_TOO_LONG',
        `array '${key}' of ${count} ${itemType} items brings the metadata to ${this.used + count} string/bool/array items; ` +
          `the limit is JEPA_MAX_META_ITEMS=${this.max} (set it higher to allow)`,
        { kind: 'budget' },
      );
    }
    this.used += count;
  }
}

interface ReadContext {
  readonly c: Cursor;
  readonly budget: ItemBudget;
  readonly options: ReadOptions;
}

function readMetadata(c: Cursor, nKv: number, options: ReadOptions): { metadata: GgufMetadata; skipped: Map<string, GgufSkippedValue> } {
  const metadata: GgufMetadata = new Map();
  const skipped = new Map<string, GgufSkippedValue>();
  const ctx: ReadContext = { c, budget: new ItemBudget(), options };
  for (let i = 0; i < nKv; i++) {
    let key: string | undefined;
    try {
      key = c.string(`metadata key #${i}`, GGUF_MAX_KEY_LENGTH);
      if (key.length === 0) throw new GgufError('GGUF_BAD_KEY', `metadata key #${i} is empty`);
      if (metadata.has(key) || skipped.has(key)) throw new GgufError('GGUF_DUPLICATE_KEY', `metadata key '${key}' appears twice`);
      readKeyValue(ctx, key, metadata, skipped);
    } catch (e) {
      throw truncatedInside(e, `the kv section (key ${i + 1} of ${nKv}${key ? `, '${key.slice(0, 80)}'` : ''})`);
    }
  }
  return { metadata, skipped };
}

function readKeyValue(ctx: ReadContext, key: string, metadata: GgufMetadata, skipped: Map<string, GgufSkippedValue>): void {
  const { c } = ctx;
  const tagAt = c.pos;
  const type = readTypeTag(c, `key '${key}'`);
  if (key === GGUF_KEY_ALIGNMENT && type !== 'u32') {
    throw new GgufError('GGUF_BAD_ALIGNMENT', `'${GGUF_KEY_ALIGNMENT}' must be u32, found ${type}`);
  }
  let head: GgufValueHead;
  if (type === 'string') {
    head = { key, type, byteLength: c.stringLength(`value of '${key}'`, GGUF_MAX_STRING_LENGTH) };
    if (head.byteLength! > c.remaining()) throw c.truncated(head.byteLength!, `value of '${key}'`);
  } else if (type === 'array') {
    const itemType = readTypeTag(c, `array '${key}' item`);
    head = { key, type, itemType, count: readArrayCount(c, key, itemType) };
  } else {
    head = { key, type };
  }
  const raw = key === GGUF_KEY_ALIGNMENT || ctx.options.onValue === undefined ? 'read' : ctx.options.onValue(head);
  const decision: GgufValueDecision = typeof raw === 'string' ? { action: raw } : raw;
  const bodyAt = c.pos;
  if (decision.action === 'read') {
    metadata.set(key, readBody(ctx, head, decision));
    return;
  }
  const usedBefore = ctx.budget.used;
  skipBody(ctx, head);
  const nbytes = c.pos - tagAt;
  if (decision.action === 'read-small' && nbytes <= UNUSED_VALUE_MAX_BYTES) {
    c.pos = bodyAt;
    ctx.budget.used = usedBefore; // the walk and the read are the same items
    metadata.set(key, readBody(ctx, head, decision));
    return;
  }
  if (decision.action === 'read-small' && decision.onLarge) throw decision.onLarge(nbytes);
  skipped.set(key, {
    key,
    type,
    offset: tagAt,
    nbytes,
    ...(head.itemType !== undefined ? { itemType: head.itemType, count: head.count } : {}),
  });
}

function readBody(ctx: ReadContext, head: GgufValueHead, decision: GgufValueDecision): GgufValue {
  if (head.type === 'string') return { type: 'string', value: ctx.c.stringBody(head.byteLength!, `value of '${head.key}'`) };
  if (head.type === 'array') {
    return readArrayItems(ctx, head.key, 1, head.itemType!, head.count!, decision.maxItemLength ?? GGUF_MAX_STRING_LENGTH);
  }
  return readScalar(ctx.c, head.type, head.key);
}

function readTensorInfos(c: Cursor, nTensors: number): PendingTensor[] {
  const pending: PendingTensor[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < nTensors; i++) {
    let name: string | undefined;
    try {
      name = readTensorName(c, i);
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
    } catch (e) {
      throw truncatedInside(e, `the tensor-info table (tensor ${i + 1} of ${nTensors}${name ? `, '${name}'` : ''})`);
    }
  }
  return pending;
}

function readTensorName(c: Cursor, i: number): string {
  const len = c.stringLength(`tensor name #${i}`, GGUF_MAX_STRING_LENGTH);
  if (len === 0 || len >= GGML_MAX_NAME) {
    let shown = '';
    if (len > 0 && len <= SHOWN_NAME_BYTES && len <= c.remaining()) {
      try {
        shown = ` '${c.stringBody(len, `tensor name #${i}`).slice(0, 80)}'`;
      } catch {
        // not UTF-8: the length alone is the refusal
      }
    }
    throw new GgufError('GGUF_BAD_TENSOR_NAME', `tensor #${i} name${shown} of ${len} bytes must have 1..${GGML_MAX_NAME - 1} bytes`);
  }
  return c.stringBody(len, `tensor name #${i}`);
}

const describeTensor = (p: PendingTensor) => `${ggmlTypeInfo(p.type).name} [${p.shape.join(', ')}]`;

/**
 * ggml's rule: tensors are packed in table order, each padded to the alignment; then every byte must be in the file.
 * Where the chain breaks between tensors A and B, the refusal blames whichever the rest of the table agrees is
 * wrong: B's offset (the chain resumes from where B should have been), or A's dims or type (the chain resumes from
 * B's stored offset, so A's computed size is what disagrees).
 */
function placeTensors(pending: readonly PendingTensor[], dataOffset: number, alignment: number, fileSize: number): GgufTensorInfo[] {
  const align = BigInt(alignment);
  const dataSize = BigInt(fileSize - dataOffset);
  const padded = (p: PendingTensor) => alignUpBig(p.nbytes, align);
  /** Does the table, from tensor j placed at `at`, continue consistently (the next offset, or the file end)? */
  const consistentFrom = (j: number, at: bigint): boolean => {
    const p = pending[j];
    if (j + 1 < pending.length) return pending[j + 1].relOffset === at + padded(p);
    const end = at + p.nbytes;
    return end <= dataSize && dataSize <= alignUpBig(end, align);
  };
  let expected = 0n;
  for (const [j, p] of pending.entries()) {
    if (p.relOffset !== expected) {
      const prev = j > 0 ? pending[j - 1] : undefined;
      if (prev !== undefined && !consistentFrom(j, expected) && consistentFrom(j, p.relOffset) && p.relOffset > prev.relOffset) {
        const gap = p.relOffset - prev.relOffset;
        throw new GgufError(
          'GGUF_TENSOR_SIZE',
          `tensor '${prev.name}' (${describeTensor(prev)}) takes ${prev.nbytes} bytes (${padded(prev)} padded to ${alignment}), ` +
            `but the next tensor '${p.name}' starts ${gap} bytes after it: '${prev.name}' has a wrong dim or type`,
        );
      }
      throw new GgufError(
        'GGUF_TENSOR_OFFSET',
        `tensor '${p.name}' has data offset ${p.relOffset}, expected ${expected} (tensors are packed in table order, each padded to ${alignment})`,
      );
    }
    expected += padded(p);
  }
  checkTensorExtents(
    pending.map((p) => ({ name: p.name, offset: BigInt(dataOffset) + p.relOffset, nbytes: p.nbytes })),
    fileSize,
  );
  return pending.map((p) =>
    Object.freeze({
      name: p.name,
      type: p.type,
      shape: Object.freeze(p.shape) as readonly number[],
      offset: dataOffset + Number(p.relOffset),
      relativeOffset: Number(p.relOffset),
      nbytes: Number(p.nbytes),
    }),
  );
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

function refuseNegative(n: bigint, what: string): void {
  if (n < 0n) throw new GgufError('GGUF_BAD_COUNT', `${what} ${n} is negative`);
}

/**
 * A count whose entries cannot fit in the bytes left is a bad count when it is implausibly large; a plausible one
 * is read, and the entry where the bytes run out is named as a truncation.
 */
function checkCount(c: Cursor, n: bigint, what: string, minBytesEach: number): number {
  if (n > BigInt(PLAUSIBLE_COUNT) && n * BigInt(minBytesEach) > BigInt(c.remaining())) {
    throw new GgufError('GGUF_BAD_COUNT', `${what} ${n} cannot fit in the ${c.remaining()} bytes left (each entry takes at least ${minBytesEach})`);
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

function readScalar(c: Cursor, type: Exclude<GgufValueType, 'array'>, key: string): GgufValue {
  const what = `value of '${key}'`;
  switch (type) {
    case 'u8':
      return { type, value: c.u8(what) };
    case 'i8':
      return { type, value: c.i8(what) };
    case 'u16':
      return { type, value: c.u16(what) };
    case 'i16':
      return { type, value: c.i16(what) };
    case 'u32':
      return { type, value: c.u32(what) };
    case 'i32':
      return { type, value: c.i32(what) };
    case 'f32':
      return { type, value: c.f32(what) };
    case 'f64':
      return { type, value: c.f64(what) };
    case 'u64':
      return { type, value: c.u64(what) };
    case 'i64':
      return { type, value: c.i64(what) };
    case 'bool':
      return { type, value: readBool(c, what) };
    case 'string':
      return { type, value: c.string(what, GGUF_MAX_STRING_LENGTH) };
  }
}

function readBool(c: Cursor, what: string): boolean {
  const b = c.u8(what);
  if (b > 1) throw new GgufError('GGUF_BAD_VALUE_TYPE', `${what} is a bool stored as ${b}, not 0 or 1`);
  return b === 1;
}

const minItemBytes = (itemType: GgufValueType): number =>
  GGUF_SCALAR_SIZE[itemType] ?? (itemType === 'string' ? MIN_STRING_BYTES : MIN_NESTED_ARRAY_BYTES);

/** An array's u64 item count, checked against the 2^30 cap and against the bytes left. */
function readArrayCount(c: Cursor, key: string, itemType: GgufValueType): number {
  const n = c.u64(`array '${key}' length`);
  if (n > BigInt(GGUF_MAX_ARRAY_ELEMENTS)) {
    throw new GgufError('GGUF_ARRAY_TOO_LONG', `array '${key}' has ${n} items, above the limit ${GGUF_MAX_ARRAY_ELEMENTS}`);
  }
  const count = Number(n);
  const minItem = minItemBytes(itemType);
  if (count * minItem > c.remaining()) {
    throw new GgufError(
      'GGUF_TRUNCATED',
      `array '${key}' of ${count} ${itemType} items needs at least ${count * minItem} bytes, the file has ${c.remaining()} left`,
    );
  }
  return count;
}

function nestedHead(c: Cursor, key: string, depth: number): { itemType: GgufValueType; count: number } {
  if (depth > GGUF_MAX_ARRAY_NESTING) {
    throw new GgufError('GGUF_NESTING_TOO_DEEP', `array '${key}' nests deeper than ${GGUF_MAX_ARRAY_NESTING} levels`);
  }
  const itemType = readTypeTag(c, `array '${key}' item`);
  return { itemType, count: readArrayCount(c, key, itemType) };
}

function readArrayItems(ctx: ReadContext, key: string, depth: number, itemType: GgufValueType, count: number, maxItemLength: number): GgufArray {
  const { c, budget } = ctx;
  switch (itemType) {
    case 'string': {
      budget.take(count, key, itemType);
      const value: string[] = [];
      for (let i = 0; i < count; i++) value.push(c.string(`'${key}'[${i}]`, maxItemLength));
      return { type: 'array', itemType, value };
    }
    case 'bool': {
      budget.take(count, key, itemType);
      const value: boolean[] = [];
      for (let i = 0; i < count; i++) value.push(readBool(c, `'${key}'[${i}]`));
      return { type: 'array', itemType, value };
    }
    case 'array': {
      budget.take(count, key, itemType);
      const value: GgufArray[] = [];
      for (let i = 0; i < count; i++) {
        const sub = `${key}[${i}]`;
        const h = nestedHead(c, sub, depth + 1);
        value.push(readArrayItems(ctx, sub, depth + 1, h.itemType, h.count, maxItemLength));
      }
      return { type: 'array', itemType, value };
    }
    default: {
      const t = itemType as GgufNumberType | GgufBigType;
      const bytes = c.ownedBytes(count * (GGUF_SCALAR_SIZE[t] as number), `array '${key}'`);
      return { type: 'array', itemType: t, value: typedArrayOwning(t, bytes) };
    }
  }
}

/**
 * Walks past a value whose head has been read, materialising nothing. Numeric and bool arrays and strings are
 * skipped in O(1); string and nested arrays must be walked item by item (their lengths are inline), so their items
 * count against the same JEPA_MAX_META_ITEMS budget as materialised ones: walking is bounded too.
 */
function skipBody(ctx: ReadContext, head: GgufValueHead): void {
  const { c } = ctx;
  if (head.type === 'string') c.skip(head.byteLength!, `value of '${head.key}'`);
  else if (head.type === 'array') skipArrayItems(ctx, head.key, 1, head.itemType!, head.count!);
  else c.skip(GGUF_SCALAR_SIZE[head.type] as number, `value of '${head.key}'`);
}

function skipArrayItems(ctx: ReadContext, key: string, depth: number, itemType: GgufValueType, count: number): void {
  const { c, budget } = ctx;
  if (itemType === 'string') {
    budget.take(count, key, itemType);
    c.skipStrings(count, GGUF_MAX_STRING_LENGTH, `'${key}'`);
  } else if (itemType === 'array') {
    budget.take(count, key, itemType);
    for (let i = 0; i < count; i++) {
      const sub = `${key}[${i}]`;
      const h = nestedHead(c, sub, depth + 1);
      skipArrayItems(ctx, sub, depth + 1, h.itemType, h.count);
    }
  } else {
    c.skip(count * (GGUF_SCALAR_SIZE[itemType] as number), `array '${key}'`);
  }
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function alignUpBig(n: bigint, alignment: bigint): bigint {
  return ((n + alignment - 1n) / alignment) * alignment;
}
