import { GgufError } from './errors.js';

/** One row of ggml's type_traits table (ggml/src/ggml.c at the pinned commit 80fb11a). */
export interface GgmlTypeInfo {
  readonly id: number;
  readonly name: string;
  /** Elements per block; 0 for ids whose support ggml has removed. */
  readonly blockSize: number;
  /** Bytes per block; 0 for removed ids. */
  readonly typeSize: number;
  readonly isQuantized: boolean;
  /** False for the removed ids (4, 5, 31–33, 36–38): ggml refuses them in a file. */
  readonly supported: boolean;
}

const QK_K = 256;

function t(id: number, name: string, blockSize: number, typeSize: number, isQuantized: boolean): GgmlTypeInfo {
  return { id, name, blockSize, typeSize, isQuantized, supported: blockSize > 0 };
}

/** Indexed by ggml_type id; GGML_TYPE_COUNT = 43. */
export const GGML_TYPES: readonly GgmlTypeInfo[] = Object.freeze([
  t(0, 'f32', 1, 4, false),
  t(1, 'f16', 1, 2, false),
  t(2, 'q4_0', 32, 2 + 16, true),
  t(3, 'q4_1', 32, 2 + 2 + 16, true),
  t(4, 'q4_2', 0, 0, false),
  t(5, 'q4_3', 0, 0, false),
  t(6, 'q5_0', 32, 2 + 4 + 16, true),
  t(7, 'q5_1', 32, 2 + 2 + 4 + 16, true),
  t(8, 'q8_0', 32, 2 + 32, true),
  t(9, 'q8_1', 32, 4 + 32, true), // block_q8_1 is half2 + 32 int8; gguf-py's table still says 40
  t(10, 'q2_K', QK_K, 2 + 2 + QK_K / 16 + QK_K / 4, true),
  t(11, 'q3_K', QK_K, 2 + QK_K / 4 + QK_K / 8 + 12, true),
  t(12, 'q4_K', QK_K, 2 + 2 + QK_K / 2 + 12, true),
  t(13, 'q5_K', QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12, true),
  t(14, 'q6_K', QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16, true),
  t(15, 'q8_K', QK_K, 4 + QK_K + QK_K / 8, true),
  t(16, 'iq2_xxs', QK_K, 2 + QK_K / 4, true),
  t(17, 'iq2_xs', QK_K, 2 + QK_K / 4 + QK_K / 32, true),
  t(18, 'iq3_xxs', QK_K, 2 + QK_K / 4 + QK_K / 8, true),
  t(19, 'iq1_s', QK_K, 2 + QK_K / 8 + QK_K / 16, true),
  t(20, 'iq4_nl', 32, 2 + 16, true),
  t(21, 'iq3_s', QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4, true),
  t(22, 'iq2_s', QK_K, 2 + QK_K / 4 + QK_K / 16, true),
  t(23, 'iq4_xs', QK_K, 2 + 2 + QK_K / 2 + QK_K / 64, true),
  t(24, 'i8', 1, 1, false),
  t(25, 'i16', 1, 2, false),
  t(26, 'i32', 1, 4, false),
  t(27, 'i64', 1, 8, false),
  t(28, 'f64', 1, 8, false),
  t(29, 'iq1_m', QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32, true),
  t(30, 'bf16', 1, 2, false),
  t(31, 'q4_0_4_4', 0, 0, false),
  t(32, 'q4_0_4_8', 0, 0, false),
  t(33, 'q4_0_8_8', 0, 0, false),
  t(34, 'tq1_0', QK_K, 2 + 4 * 13, true),
  t(35, 'tq2_0', QK_K, 2 + 64, true),
  t(36, 'iq4_nl_4_4', 0, 0, false),
  t(37, 'iq4_nl_4_8', 0, 0, false),
  t(38, 'iq4_nl_8_8', 0, 0, false),
  t(39, 'mxfp4', 32, 1 + 16, true),
  t(40, 'nvfp4', 64, 4 + 32, true),
  t(41, 'q1_0', 128, 2 + 16, true),
  t(42, 'q2_0', 64, 2 + 16, true),
]);

export const GGML_TYPE_COUNT = GGML_TYPES.length;

export const GgmlType = Object.freeze({
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q8_1: 9,
  Q2_K: 10,
  Q3_K: 11,
  Q4_K: 12,
  Q5_K: 13,
  Q6_K: 14,
  Q8_K: 15,
  IQ2_XXS: 16,
  IQ2_XS: 17,
  IQ3_XXS: 18,
  IQ1_S: 19,
  IQ4_NL: 20,
  IQ3_S: 21,
  IQ2_S: 22,
  IQ4_XS: 23,
  I8: 24,
  I16: 25,
  I32: 26,
  I64: 27,
  F64: 28,
  IQ1_M: 29,
  BF16: 30,
  TQ1_0: 34,
  TQ2_0: 35,
  MXFP4: 39,
  NVFP4: 40,
  Q1_0: 41,
  Q2_0: 42,
} as const);

export function ggmlTypeInfo(type: number): GgmlTypeInfo {
  const info = Number.isInteger(type) && type >= 0 ? GGML_TYPES[type] : undefined;
  if (info === undefined) {
    throw new GgufError('GGUF_BAD_TENSOR_TYPE', `ggml type ${type} is not in [0, ${GGML_TYPE_COUNT})`);
  }
  return info;
}

export function ggmlTypeByName(name: string): GgmlTypeInfo {
  const info = GGML_TYPES.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (info === undefined) throw new GgufError('GGUF_BAD_TENSOR_TYPE', `unknown ggml type name '${name}'`);
  return info;
}

export const GGML_MAX_DIMS = 4;
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Bytes of a tensor of `type` and ggml-order `shape`, with ggml's own refusals: at most 4 dims, no negative
 * extent, an element count and byte size that fit int64, and a row length that is a whole number of blocks.
 */
export function tensorNbytes(type: number, shape: readonly (number | bigint)[], name = '<tensor>'): bigint {
  const info = ggmlTypeInfo(type);
  if (!info.supported) {
    throw new GgufError('GGUF_BAD_TENSOR_TYPE', `tensor '${name}' has removed ggml type ${type} (${info.name})`);
  }
  if (shape.length > GGML_MAX_DIMS) {
    throw new GgufError('GGUF_BAD_DIMS', `tensor '${name}' has ${shape.length} dims, more than ${GGML_MAX_DIMS}`);
  }
  let elements = 1n;
  for (const [i, d] of shape.entries()) {
    const n = BigInt(d);
    if (n < 0n) throw new GgufError('GGUF_BAD_DIMS', `tensor '${name}' ne[${i}] = ${n} is negative`);
    elements *= n;
    if (elements > INT64_MAX) {
      throw new GgufError('GGUF_TENSOR_TOO_LARGE', `tensor '${name}' has more than 2^63-1 elements`);
    }
  }
  const ne0 = shape.length > 0 ? BigInt(shape[0]) : 1n;
  if (ne0 % BigInt(info.blockSize) !== 0n) {
    throw new GgufError(
      'GGUF_BAD_BLOCK',
      `tensor '${name}' of type ${info.name} has ne[0] = ${ne0}, not a multiple of the block size ${info.blockSize}`,
    );
  }
  const bytes = (elements / BigInt(info.blockSize)) * BigInt(info.typeSize);
  if (bytes > INT64_MAX) {
    throw new GgufError('GGUF_TENSOR_TOO_LARGE', `tensor '${name}' would take more than 2^63-1 bytes`);
  }
  return bytes;
}
