/** GGUF metadata value types: tag numbers as in gguf.h / gguf-py GGUFValueType. */
export const GGUF_VALUE_TAGS = Object.freeze({
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const);

export type GgufValueType = keyof typeof GGUF_VALUE_TAGS;
export type GgufNumberType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64';
export type GgufBigType = 'u64' | 'i64';

const TAG_TO_TYPE: readonly GgufValueType[] = Object.entries(GGUF_VALUE_TAGS)
  .sort((a, b) => a[1] - b[1])
  .map(([name]) => name as GgufValueType);

export function valueTypeFromTag(tag: number): GgufValueType | undefined {
  return TAG_TO_TYPE[tag];
}

/** Fixed byte width of a scalar type; undefined for string and array. */
export const GGUF_SCALAR_SIZE: Readonly<Partial<Record<GgufValueType, number>>> = Object.freeze({
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  f32: 4,
  bool: 1,
  u64: 8,
  i64: 8,
  f64: 8,
});

export type GgufTypedArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigUint64Array
  | BigInt64Array;

/** Numeric arrays are typed arrays (exact bits, O(bytes) memory); strings, bools and nested arrays are JS arrays. */
export type GgufArray =
  | { type: 'array'; itemType: GgufNumberType | GgufBigType; value: GgufTypedArray }
  | { type: 'array'; itemType: 'bool'; value: boolean[] }
  | { type: 'array'; itemType: 'string'; value: string[] }
  | { type: 'array'; itemType: 'array'; value: GgufArray[] };

export type GgufValue =
  | { type: GgufNumberType; value: number }
  | { type: GgufBigType; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | GgufArray;

export type GgufMetadata = Map<string, GgufValue>;

const TYPED_ARRAY_CTORS = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
} as const;

/** Copies little-endian bytes into a fresh typed array of the item type (the host is little-endian; see reader). */
export function typedArrayFromBytes(itemType: GgufNumberType | GgufBigType, bytes: Uint8Array): GgufTypedArray {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const Ctor = TYPED_ARRAY_CTORS[itemType];
  return new Ctor(copy.buffer, 0, copy.byteLength / Ctor.BYTES_PER_ELEMENT);
}

/** Wraps bytes the caller owns (byteOffset 0, nothing else holds them) without copying. */
export function typedArrayOwning(itemType: GgufNumberType | GgufBigType, bytes: Uint8Array): GgufTypedArray {
  if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== bytes.byteLength) return typedArrayFromBytes(itemType, bytes);
  const Ctor = TYPED_ARRAY_CTORS[itemType];
  return new Ctor(bytes.buffer as ArrayBuffer, 0, bytes.byteLength / Ctor.BYTES_PER_ELEMENT);
}

/** Convenience constructors, so callers do not spell out the tagged objects. */
export const gv = {
  u8: (value: number): GgufValue => ({ type: 'u8', value }),
  i8: (value: number): GgufValue => ({ type: 'i8', value }),
  u16: (value: number): GgufValue => ({ type: 'u16', value }),
  i16: (value: number): GgufValue => ({ type: 'i16', value }),
  u32: (value: number): GgufValue => ({ type: 'u32', value }),
  i32: (value: number): GgufValue => ({ type: 'i32', value }),
  f32: (value: number): GgufValue => ({ type: 'f32', value }),
  f64: (value: number): GgufValue => ({ type: 'f64', value }),
  u64: (value: bigint): GgufValue => ({ type: 'u64', value }),
  i64: (value: bigint): GgufValue => ({ type: 'i64', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  str: (value: string): GgufValue => ({ type: 'string', value }),
  f32s: (value: readonly number[]): GgufArray => ({ type: 'array', itemType: 'f32', value: Float32Array.from(value) }),
  u32s: (value: readonly number[]): GgufArray => ({ type: 'array', itemType: 'u32', value: Uint32Array.from(value) }),
  strs: (value: readonly string[]): GgufArray => ({ type: 'array', itemType: 'string', value: [...value] }),
  bools: (value: readonly boolean[]): GgufArray => ({ type: 'array', itemType: 'bool', value: [...value] }),
  arrays: (value: readonly GgufArray[]): GgufArray => ({ type: 'array', itemType: 'array', value: [...value] }),
};
