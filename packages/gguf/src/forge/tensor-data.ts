import { GgmlType, tensorNbytes } from '../ggml-types.js';
import { encodeHalf, f32BitsToF16 } from '../half.js';
import { hashSeed, mulberry32 } from './rng.js';

/** Seeded values for one tensor in f32; norm weights sit near 1, everything else near 0. */
export function seededF32(seed: number, name: string, count: number): Float32Array {
  const rnd = mulberry32(hashSeed(seed, name));
  const isNormWeight = /(^|\.)(ln\d|norm|attn_norm|ffn_norm|hier_norm\.\d+)\.weight$/.test(name);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (isNormWeight ? 1 : 0) + (rnd() - 0.5) * 0.2;
  return out;
}

// one scratch word for every conversion: a fresh array per value made forging a ViT-H take minutes
const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** One value's f16 bits, rounded as the converter and ggml round them. */
function f32ToF16Bits(v: number): number {
  scratchF32[0] = v;
  return f32BitsToF16(scratchU32[0]!);
}

/**
 * Where the f16 scales of a quantized block sit (ggml-common.h): block bytes, then the scale offsets.
 * Forged blocks get finite scales there, since random bytes would decode to NaN or Inf now and then.
 */
const BLOCK_SCALES: Partial<Record<number, [number, number[]]>> = {
  [GgmlType.Q4_0]: [18, [0]],
  [GgmlType.Q4_1]: [20, [0, 2]],
  [GgmlType.Q5_0]: [22, [0]],
  [GgmlType.Q5_1]: [24, [0, 2]],
  [GgmlType.Q8_1]: [36, [0, 2]],
  [GgmlType.Q2_K]: [84, [80, 82]],
  [GgmlType.Q3_K]: [110, [108]],
  [GgmlType.Q4_K]: [144, [0, 2]],
  [GgmlType.Q5_K]: [176, [0, 2]],
  [GgmlType.Q6_K]: [210, [208]],
};

/**
 * The bytes of a forged tensor of any type: f32, f16 and bf16 are the seeded values converted; q8_0 is a valid
 * quantisation of them; every other type gets seeded bytes (right size, arbitrary content) with finite block scales.
 */
export function forgedTensorBytes(seed: number, name: string, type: number, shape: readonly number[]): Uint8Array {
  const nbytes = Number(tensorNbytes(type, shape, name));
  const count = shape.reduce((a, b) => a * b, 1);
  const values = seededF32(
    seed,
    name,
    type === GgmlType.F32 || type === GgmlType.F16 || type === GgmlType.BF16 || type === GgmlType.Q8_0 ? count : 0,
  );
  switch (type) {
    case GgmlType.F32:
      return new Uint8Array(values.buffer);
    case GgmlType.F16:
      return new Uint8Array(encodeHalf(values, 'f16').buffer);
    case GgmlType.BF16:
      return new Uint8Array(Uint16Array.from(new Uint32Array(values.buffer), (x) => x >>> 16).buffer);
    case GgmlType.Q8_0: {
      const out = new Uint8Array(nbytes);
      const view = new DataView(out.buffer);
      for (let b = 0; b < count / 32; b++) {
        const block = values.subarray(b * 32, b * 32 + 32);
        const amax = block.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        const d = amax / 127;
        view.setUint16(b * 34, f32ToF16Bits(d), true);
        for (let i = 0; i < 32; i++) view.setInt8(b * 34 + 2 + i, d === 0 ? 0 : Math.round(block[i] / d));
      }
      return out;
    }
    default: {
      const rnd = mulberry32(hashSeed(seed, name));
      const out = Uint8Array.from({ length: nbytes }, () => Math.floor(rnd() * 256));
      const scales = BLOCK_SCALES[type];
      if (scales) {
        const [blockBytes, offsets] = scales;
        const view = new DataView(out.buffer);
        for (let at = 0; at + blockBytes <= nbytes; at += blockBytes)
          for (const o of offsets) view.setUint16(at + o, f32ToF16Bits((rnd() - 0.5) * 0.02), true);
      }
      return out;
    }
  }
}
