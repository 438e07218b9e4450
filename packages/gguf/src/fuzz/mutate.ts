import { forgeModelBytes, type ForgeKnobs } from '../forge/forge.js';
import { GgufError } from '../errors.js';
import { GGML_TYPE_COUNT } from '../ggml-types.js';
import type { GgufValue } from '../gguf/value.js';
import { KEYS } from '../schema/keys.js';
import { hparamsToMetadata } from '../schema/to-metadata.js';
import type { Seed } from './corpus.js';

export type Rng = () => number;

const INTERESTING_64 = [
  0n,
  1n,
  0x7fn,
  0xffn,
  0x7fffffffn,
  0x80000000n,
  0xffffffffn,
  1n << 32n,
  1n << 40n,
  1n << 62n,
  (1n << 63n) - 1n,
  (1n << 64n) - 1n,
];
const INTERESTING_32 = [0, 1, 8, 9, 12, 13, 14, 63, 64, 0x7fffffff, 0x80000000, 0xffffffff];
const INTERESTING_F32 = [Number.NaN, Infinity, -Infinity, -0, 0, 1e-45, 3.4e38, -1, 2, 0.5];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const int = (rng: Rng, n: number) => Math.floor(rng() * n);

/** The mutation kinds, each named so a finding says how it was made. */
export const MUTATORS = {
  bitflip(rng: Rng, s: Seed): Uint8Array {
    const out = s.bytes.slice();
    const n = 1 + int(rng, 8);
    for (let i = 0; i < n; i++) {
      const at = rng() < 0.9 ? int(rng, s.headerEnd) : int(rng, out.length);
      out[at] ^= 1 << int(rng, 8);
    }
    return out;
  },
  truncate(rng: Rng, s: Seed): Uint8Array {
    const cut = rng() < 0.5 ? int(rng, s.headerEnd + 1) : s.headerEnd + int(rng, s.bytes.length - s.headerEnd);
    return s.bytes.slice(0, cut);
  },
  hugeCount(rng: Rng, s: Seed): Uint8Array {
    const out = s.bytes.slice();
    const at = pick(rng, [8, 16]);
    new DataView(out.buffer).setBigUint64(at, pick(rng, INTERESTING_64), true);
    return out;
  },
  interestingValue(rng: Rng, s: Seed): Uint8Array {
    const out = s.bytes.slice();
    const view = new DataView(out.buffer);
    const at = int(rng, Math.max(1, s.headerEnd - 8));
    if (rng() < 0.5) view.setUint32(at, pick(rng, INTERESTING_32), true);
    else view.setBigUint64(at, pick(rng, INTERESTING_64), true);
    return out;
  },
  typeTag(rng: Rng, s: Seed): Uint8Array {
    const out = s.bytes.slice();
    const tag = rng() < 0.7 ? 13 + int(rng, 300) : pick(rng, INTERESTING_32);
    new DataView(out.buffer).setUint32(pick(rng, s.typeTagPositions), tag, true);
    return out;
  },
  tensorField(rng: Rng, s: Seed): Uint8Array {
    const out = s.bytes.slice();
    const view = new DataView(out.buffer);
    const at = pick(rng, s.tensorFieldPositions);
    if (rng() < 0.5) view.setInt32(at, rng() < 0.5 ? int(rng, GGML_TYPE_COUNT + 4) - 2 : pick(rng, INTERESTING_32), true);
    else view.setBigUint64(at, pick(rng, INTERESTING_64), true);
    return out;
  },
  splice(rng: Rng, s: Seed, corpus: readonly Seed[]): Uint8Array {
    const other = pick(rng, corpus);
    const len = 1 + int(rng, 64);
    const from = int(rng, Math.max(1, other.headerEnd - len));
    const to = int(rng, Math.max(1, s.headerEnd - len));
    const out = s.bytes.slice();
    out.set(other.bytes.subarray(from, from + len).subarray(0, out.length - to), to);
    return out;
  },
  keyValueSwap(rng: Rng, s: Seed): Uint8Array {
    const entries = hparamsToMetadata(forgeModelBytes(s.family).hparams);
    const [ka, va] = pick(rng, entries);
    const [kb, vb] = pick(rng, entries);
    return forgeModelBytes(s.family, { metadata: { [ka]: vb, [kb]: va } }).bytes;
  },
  metadataValue(rng: Rng, s: Seed): Uint8Array {
    const key = pick(rng, KEYS).key;
    return forgeModelBytes(s.family, { metadata: { [key]: randomValue(rng) } }).bytes;
  },
  tensorKnob(rng: Rng, s: Seed): Uint8Array {
    const names = forgeModelBytes(s.family).tensors.map((t) => t.name);
    const name = pick(rng, names);
    const r = rng();
    const knobs: ForgeKnobs =
      r < 0.3
        ? { dropTensors: [name] }
        : r < 0.6
          ? { tensorType: { [name]: pick(rng, [1, 8, 24, 28, 30]) } }
          : r < 0.8
            ? { lieOffset: { tensor: name, offset: pick(rng, INTERESTING_64) } }
            : { extraTensors: [{ name: `${name}.x`.slice(0, 63), type: 0, shape: [1 + int(rng, 4)] }] };
    try {
      return forgeModelBytes(s.family, knobs).bytes;
    } catch (e) {
      // The writer refuses a type whose block does not divide this tensor's rows: drop the tensor instead.
      if (!(e instanceof GgufError)) throw e;
      return forgeModelBytes(s.family, { dropTensors: [name] }).bytes;
    }
  },
} as const;

export type MutatorName = keyof typeof MUTATORS;
export const MUTATOR_NAMES = Object.keys(MUTATORS) as MutatorName[];

function randomValue(rng: Rng): GgufValue | null {
  switch (int(rng, 9)) {
    case 0:
      return null;
    case 1:
      return { type: 'u32', value: pick(rng, INTERESTING_32) };
    case 2:
      return { type: 'f32', value: pick(rng, INTERESTING_F32) };
    case 3:
      return { type: 'i32', value: pick(rng, [-1, 0, 1, 2 ** 31 - 1]) };
    case 4:
      return { type: 'string', value: pick(rng, ['', 'gelu', 'rope3d', 'x'.repeat(300), 'jepa', 'tiled']) };
    case 5:
      return { type: 'bool', value: rng() < 0.5 };
    case 6:
      return { type: 'u64', value: pick(rng, INTERESTING_64) };
    case 7:
      return { type: 'array', itemType: 'f32', value: Float32Array.from({ length: int(rng, 5) }, () => pick(rng, INTERESTING_F32)) };
    default:
      return { type: 'array', itemType: 'u32', value: Uint32Array.from({ length: int(rng, 5) }, () => pick(rng, INTERESTING_32)) };
  }
}
