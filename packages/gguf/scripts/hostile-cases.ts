/**
 * Giant-but-legal GGUF files and message cases from the hostile-input campaign, each with the outcome it must
 * have: a one-line refusal matching a regex (or a clean load), never a crash. Every case builds at two scales:
 * 'real' (the campaign's sizes, hundreds of MB to 1.1 GB, for scripts/measure-hostile.ts) and 'test' (KB to a few
 * MB, with env limits lowered where the bound is env-set, so the tests run the same code path in milliseconds).
 * A file is a list of parts, with long runs as a repeated pattern, so a 1.1 GB case is written without 1.1 GB of
 * memory. Used by test/hostile.test.ts, scripts/gen-hostile.ts and scripts/measure-hostile.ts.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { GgufErrorCode } from '../src/errors.js';
import { forgeModelBytes, type ForgeKnobs } from '../src/forge/forge.js';
import { ByteBuilder } from '../src/gguf/byte-builder.js';
import { readGgufFromBuffer } from '../src/gguf/reader.js';
import { GGUF_VALUE_TAGS, type GgufValue } from '../src/gguf/value.js';
import type { Family } from '../src/schema/family/registry.js';

export type Scale = 'real' | 'test';
export type Part = Uint8Array | { readonly pattern: Uint8Array; readonly times: number };

export interface Outcome {
  readonly code: GgufErrorCode;
  readonly message: RegExp;
}

export interface HostileCase {
  readonly name: string;
  /** What the campaign found before the fix. */
  readonly finding: string;
  /** Whether this is a giant file at real scale (measured) or a small message case. */
  readonly giant: boolean;
  readonly build: (scale: Scale) => Part[];
  /** Env limits the test scale needs to reach the same bound (the real scale runs with the defaults). */
  readonly testEnv?: Record<string, string>;
  /** Through loadModelSpec (the schema's read policy): what `jepa info` does. */
  readonly expect: Outcome | 'loads';
  /** Through the plain reader + validateModel (every value materialised), at the test scale. */
  readonly expectPlain?: Outcome | 'loads';
}

export function partsSize(parts: readonly Part[]): number {
  return parts.reduce((n, p) => n + (p instanceof Uint8Array ? p.byteLength : p.pattern.byteLength * p.times), 0);
}

export function concatParts(parts: readonly Part[]): Uint8Array {
  const out = new Uint8Array(partsSize(parts));
  let at = 0;
  for (const p of parts) {
    if (p instanceof Uint8Array) {
      out.set(p, at);
      at += p.byteLength;
    } else {
      for (let i = 0; i < p.times; i++, at += p.pattern.byteLength) out.set(p.pattern, at);
    }
  }
  return out;
}

export function writeParts(path: string, parts: readonly Part[]): number {
  const fd = openSync(path, 'w');
  try {
    const put = (b: Uint8Array) => {
      for (let done = 0; done < b.byteLength; ) done += writeSync(fd, b, done, b.byteLength - done);
    };
    for (const p of parts) {
      if (p instanceof Uint8Array) put(p);
      else for (let i = 0; i < p.times; i++) put(p.pattern);
    }
  } finally {
    closeSync(fd);
  }
  return partsSize(parts);
}

/** `count` items as a run of a pattern of `per` items each (count must be a multiple of per, or per ≥ count). */
function run(item: Uint8Array, count: number, per = 1 << 20): Part[] {
  const n = Math.min(per, count);
  const pattern = new Uint8Array(item.byteLength * n);
  for (let i = 0; i < n; i++) pattern.set(item, i * item.byteLength);
  const times = Math.floor(count / n);
  const rest = count - times * n;
  return rest === 0 ? [{ pattern, times }] : [{ pattern, times }, pattern.subarray(0, rest * item.byteLength)];
}

/** The bytes of a metadata entry's key and type tag, plus an array's item tag and count or a string's length. */
function entryHead(
  key: string,
  type: keyof typeof GGUF_VALUE_TAGS,
  opts: { itemType?: keyof typeof GGUF_VALUE_TAGS; count?: number; byteLength?: number },
): Uint8Array {
  const b = new ByteBuilder();
  b.string(key);
  b.u32(GGUF_VALUE_TAGS[type]);
  if (type === 'array') {
    b.u32(GGUF_VALUE_TAGS[opts.itemType!]);
    b.u64(BigInt(opts.count!));
  } else if (type === 'string') {
    b.u64(BigInt(opts.byteLength!));
  }
  return b.bytes().slice();
}

const f32Bytes = (v: number) => new Uint8Array(Float32Array.of(v).buffer);
const emptyString = new Uint8Array(8);

/**
 * A valid forged model with one metadata entry replaced (same key) or added (new key, written first, before
 * general.architecture, so the reader meets it before anything is known about the file).
 */
function withEntry(family: Family, knobs: ForgeKnobs, key: string, entry: Part[]): Part[] {
  const forged = forgeModelBytes(family, knobs).bytes;
  const h = readGgufFromBuffer(forged);
  const replacing = h.metadata.has(key);
  let b = new ByteBuilder();
  b.u32(0x46554747);
  b.u32(3);
  b.i64(BigInt(h.tensors.length));
  b.i64(BigInt(h.metadata.size + (replacing ? 0 : 1)));
  const parts: Part[] = [];
  const flush = () => {
    parts.push(b.bytes().slice());
    b = new ByteBuilder();
  };
  if (!replacing) {
    flush();
    parts.push(...entry);
  }
  for (const [k, v] of h.metadata) {
    if (k === key) {
      flush();
      parts.push(...entry);
      continue;
    }
    b.string(k);
    b.value(k, v as GgufValue);
  }
  for (const t of h.tensors) {
    b.string(t.name);
    b.u32(t.shape.length);
    for (const d of t.shape) b.i64(BigInt(d));
    b.i32(t.type);
    b.u64(BigInt(t.relativeOffset));
  }
  const before = partsSize(parts) + b.length;
  b.zeros((h.alignment - (before % h.alignment)) % h.alignment);
  flush();
  parts.push(forged.subarray(h.dataOffset));
  return parts;
}

/** Where the forged file's kv section ends and each tensor-info entry starts. */
function layout(family: Family): { bytes: Uint8Array; kvEnd: number; offsetFields: number[]; dataOffset: number } {
  const f = forgeModelBytes(family);
  const h = readGgufFromBuffer(f.bytes);
  const offsetFields = f.tensors.map((t) => f.offsetFieldPositions.get(t.name)!);
  const t0 = f.tensors[0];
  const kvEnd = offsetFields[0] - 4 - 8 * t0.shape.length - 4 - 8 - Buffer.byteLength(t0.name);
  return { bytes: f.bytes, kvEnd, offsetFields, dataOffset: h.dataOffset };
}

/** Forges a valid model and overwrites a field of one tensor's table entry in place. */
function patchTensor(family: Family, tensor: string, patch: (view: DataView, offsetField: number) => void): Uint8Array {
  const f = forgeModelBytes(family);
  const bytes = f.bytes.slice();
  patch(new DataView(bytes.buffer), f.offsetFieldPositions.get(tensor)!);
  return bytes;
}

const big = (scale: Scale, real: number, test: number) => (scale === 'real' ? real : test);

export const HOSTILE_CASES: readonly HostileCase[] = [
  {
    name: 'n-frames-65536',
    finding:
      'an honest vjepa file with jepa.enc.n_frames 65536 and crop 128: the 12 GiB clip buffer was allocated before any check ("Array buffer allocation failed")',
    giant: true,
    build: (scale) => {
      const frames = big(scale, 65536, 64);
      const crop = big(scale, 128, 64);
      const f = forgeModelBytes('vjepa', {
        edit: (h) => ({
          ...h,
          enc: { ...h.enc, nFrames: frames, gridFrames: frames / h.enc.tubeletSize, nPatches: (frames / h.enc.tubeletSize) * h.enc.gridSize ** 2 },
          pre: { ...h.pre, resize: { mode: 'short', size: crop }, crop },
        }),
      });
      return [f.bytes];
    },
    testEnv: { JEPA_MAX_INPUT_MIB: '1' },
    expect: {
      code: 'JEPA_BUDGET',
      message:
        /^jepa\.enc\.n_frames \d+ × jepa\.pre\.crop \d+² × 3 channels needs a [\d.]+ [GM]iB float32 input tensor per item; the limit is JEPA_MAX_INPUT_MIB=\d+ \(set it higher to allow\)$/,
    },
    expectPlain: { code: 'JEPA_BUDGET', message: /JEPA_MAX_INPUT_MIB/ },
  },
  {
    name: 'mean-150M',
    finding: 'a 600 MB file whose jepa.pre.mean holds 150 M floats: RangeError "Invalid array length" in toPlain at 2.6 GB',
    giant: true,
    build: (scale) => {
      const count = big(scale, 150_000_000, 100_000);
      return withEntry('hfvit', {}, 'jepa.pre.mean', [entryHead('jepa.pre.mean', 'array', { itemType: 'f32', count }), ...run(f32Bytes(0.5), count)]);
    },
    expect: {
      code: 'JEPA_RANGE',
      message: /^metadata key 'jepa\.pre\.mean' has \d+ items; the limit is 1024 \(one per channel, and jepa\.enc\.in_chans is at most 1024\)$/,
    },
    expectPlain: { code: 'JEPA_RANGE', message: /'jepa\.pre\.mean' has 100000 items; the limit is 1024/ },
  },
  {
    name: 'labels-140M',
    finding: 'a 1.1 GB file with 140 M empty strings in jepa.head.labels: SIGTRAP "Fatal JavaScript invalid size error" after 16 s at 1.9 GB',
    giant: true,
    build: (scale) => {
      const count = big(scale, 140_000_000, 100_000);
      return withEntry('vjepa2', {}, 'jepa.head.labels', [
        entryHead('jepa.head.labels', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    expect: {
      code: 'JEPA_BUDGET',
      message: /^metadata key 'jepa\.head\.labels' has \d+ items; the limit is 65536 \(JEPA_MAX_LABELS=65536; set it higher to allow\)$/,
    },
    testEnv: { JEPA_MAX_META_ITEMS: '50000' },
    expectPlain: {
      code: 'GGUF_ARRAY_TOO_LONG',
      message: /array 'jepa\.head\.labels' of 100000 string items .*JEPA_MAX_META_ITEMS=50000 \(set it higher to allow\)/,
    },
  },
  {
    name: 'unknown-jepa-strings-140M',
    finding: 'the same 140 M empty strings under an unknown jepa.* key: SIGTRAP while parsing, though the schema refuses the key',
    giant: true,
    build: (scale) => {
      const count = big(scale, 140_000_000, 200_000);
      return withEntry('ijepa', {}, 'jepa.hostile.strings', [
        entryHead('jepa.hostile.strings', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    testEnv: { JEPA_MAX_META_ITEMS: '50000' },
    expect: {
      code: 'JEPA_KEY_UNKNOWN',
      message: /^metadata key 'jepa\.hostile\.strings' is not part of jepa schema v1 \(an array of \d+ string items, refused without walking it\)$/,
    },
    expectPlain: { code: 'GGUF_ARRAY_TOO_LONG', message: /JEPA_MAX_META_ITEMS=50000/ },
  },
  {
    name: 'unknown-jepa-strings-60k',
    finding: "control: an unknown jepa.* key cheap to walk is skipped and refused in the schema's order",
    giant: false,
    build: () => {
      const count = 60_000;
      return withEntry('ijepa', {}, 'jepa.hostile.strings', [
        entryHead('jepa.hostile.strings', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    expect: { code: 'JEPA_KEY_UNKNOWN', message: /^metadata key 'jepa\.hostile\.strings' is not part of jepa schema v1$/ },
    expectPlain: { code: 'JEPA_KEY_UNKNOWN', message: /^metadata key 'jepa\.hostile\.strings' is not part of jepa schema v1$/ },
  },
  {
    name: 'foreign-strings-140M',
    finding:
      'the same strings under a key outside jepa.* (which the schema ignores): walking 140 M inline lengths costs seconds, so the count is refused against JEPA_MAX_META_ITEMS',
    giant: true,
    build: (scale) => {
      const count = big(scale, 140_000_000, 200_000);
      return withEntry('ijepa', {}, 'hostile.strings', [
        entryHead('hostile.strings', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    testEnv: { JEPA_MAX_META_ITEMS: '50000' },
    expect: {
      code: 'GGUF_ARRAY_TOO_LONG',
      message:
        /^array 'hostile\.strings' of \d+ string items brings the metadata to \d+ string\/bool\/array items; the limit is JEPA_MAX_META_ITEMS=\d+ \(set it higher to allow\)$/,
    },
    expectPlain: { code: 'GGUF_ARRAY_TOO_LONG', message: /JEPA_MAX_META_ITEMS=50000/ },
  },
  {
    name: 'foreign-strings-16M',
    finding: 'the largest foreign string array JEPA_MAX_META_ITEMS lets through (2^24 empty strings, 134 MB): walked, skipped, and the file loads',
    giant: true,
    build: (scale) => {
      const count = big(scale, 2 ** 24, 200_000);
      return withEntry('ijepa', {}, 'hostile.strings', [
        entryHead('hostile.strings', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    testEnv: { JEPA_MAX_META_ITEMS: '500000' },
    expect: 'loads',
    expectPlain: 'loads',
  },
  {
    name: 'foreign-strings-40k',
    finding: 'control: a small foreign string array (320 KB) is walked, then read, and counts once against JEPA_MAX_META_ITEMS',
    giant: false,
    build: () => {
      const count = 40_000;
      return withEntry('ijepa', {}, 'hostile.strings', [
        entryHead('hostile.strings', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    testEnv: { JEPA_MAX_META_ITEMS: '50000' },
    expect: 'loads',
    expectPlain: 'loads',
  },
  {
    name: 'unknown-jepa-u8-1GiB',
    finding: 'a 1 GiB−1 u8 array under an unknown jepa.* key: 3.1 GB peak before the refusal',
    giant: true,
    build: (scale) => {
      const count = big(scale, 2 ** 30 - 1, 4 * 2 ** 20 - 1);
      return withEntry('ijepa', {}, 'jepa.hostile.bytes', [
        entryHead('jepa.hostile.bytes', 'array', { itemType: 'u8', count }),
        ...run(new Uint8Array(1), count),
      ]);
    },
    expect: { code: 'JEPA_KEY_UNKNOWN', message: /^metadata key 'jepa\.hostile\.bytes' is not part of jepa schema v1$/ },
    expectPlain: { code: 'JEPA_KEY_UNKNOWN', message: /jepa\.hostile\.bytes/ },
  },
  {
    name: 'name-600MB',
    finding: 'a 600 MB ASCII general.name, above V8\'s string limit: refused as "not valid UTF-8"',
    giant: true,
    build: (scale) => {
      const n = big(scale, 600_000_000, 100_000);
      return withEntry('ijepa', {}, 'general.name', [entryHead('general.name', 'string', { byteLength: n }), ...run(Uint8Array.of(0x61), n)]);
    },
    expect: {
      code: 'JEPA_RANGE',
      message: /^metadata key 'general\.name' is a string of \d+ bytes; the limit is 4096 \(4096 bytes, room for 1024 characters\)$/,
    },
    expectPlain: { code: 'JEPA_RANGE', message: /general\.name.*above the maximum 1024/ },
  },
  {
    name: 'mean-as-strings-140M',
    finding:
      'a schema key of the wrong stored type and giant size (jepa.pre.mean as 140 M strings): must be refused as a type error without building or walking the array',
    giant: true,
    build: (scale) => {
      const count = big(scale, 140_000_000, 200_000);
      return withEntry('hfvit', {}, 'jepa.pre.mean', [
        entryHead('jepa.pre.mean', 'array', { itemType: 'string', count }),
        ...run(emptyString, count),
      ]);
    },
    expect: {
      code: 'JEPA_KEY_TYPE',
      message: /^metadata key 'jepa\.pre\.mean' must be stored as f32\[\], found array of string \(\d+ items, not read\)$/,
    },
    testEnv: { JEPA_MAX_META_ITEMS: '50000' },
    expectPlain: { code: 'GGUF_ARRAY_TOO_LONG', message: /JEPA_MAX_META_ITEMS/ },
  },
  {
    name: 'name-as-bytes',
    finding: 'a schema key stored as a 2 MiB u8 array: measured by extent and refused as a type error, unread',
    giant: false,
    build: () => {
      const count = 2 * 2 ** 20;
      return withEntry('ijepa', {}, 'general.name', [
        entryHead('general.name', 'array', { itemType: 'u8', count }),
        ...run(Uint8Array.of(0x61), count),
      ]);
    },
    expect: {
      code: 'JEPA_KEY_TYPE',
      message: /^metadata key 'general\.name' must be stored as string, found array of u8 \(2097168 bytes, not read\)$/,
    },
    expectPlain: { code: 'JEPA_KEY_TYPE', message: /^metadata key 'general\.name' must be stored as string, found array of u8$/ },
  },
  // message cases: small at both scales
  {
    name: 'cut-after-counts',
    finding: 'a file cut 4 bytes after the counts: "tensor count 52 is negative or cannot fit in the 4 bytes left", blaming the count',
    giant: false,
    build: () => [layout('vjepa2').bytes.slice(0, 28)],
    expect: {
      code: 'GGUF_TRUNCATED',
      message:
        /^truncated inside the kv section \(key 1 of \d+\): metadata key #0 length needs 8 bytes at offset 24 but the file has 4 left \(size 28\)$/,
    },
  },
  {
    name: 'cut-inside-kv',
    finding: 'a file cut inside its last metadata entry',
    giant: false,
    build: () => {
      const l = layout('vjepa2');
      return [l.bytes.slice(0, l.kvEnd - 3)];
    },
    expect: {
      code: 'GGUF_TRUNCATED',
      message: /^truncated inside the kv section \(key (\d+) of \1, '[a-z_.]+'\): .* needs \d+ bytes at offset \d+ but the file has \d+ left/,
    },
  },
  {
    name: 'cut-inside-tensor-info',
    finding: 'a file cut inside the tensor-info table',
    giant: false,
    build: () => {
      const l = layout('ijepa');
      return [l.bytes.slice(0, l.offsetFields[3] - 2)];
    },
    expect: { code: 'GGUF_TRUNCATED', message: /^truncated inside the tensor-info table \(tensor 4 of \d+, 'enc\.[a-z_.0-9]+'\): / },
  },
  {
    name: 'cut-inside-data',
    finding: 'a download cut inside the tensor data',
    giant: false,
    build: () => {
      const l = layout('ijepa');
      return [l.bytes.slice(0, l.dataOffset + 5000)];
    },
    expect: {
      code: 'GGUF_TENSOR_OUT_OF_FILE',
      message: /^tensor '[a-z_.0-9]+' needs \d+ bytes at \[\d+, \d+\) but the file has \d+ bytes: truncated inside the data section, \d+ bytes short/,
    },
  },
  {
    name: 'wrong-dim',
    finding: 'a wrong dim on one tensor was reported as a data-offset mismatch on the next tensor',
    giant: false,
    build: () => [patchTensor('ijepa', 'enc.blk.0.attn.qkv.weight', (v, at) => v.setBigInt64(at - 4 - 8, 97n, true))],
    expect: {
      code: 'GGUF_TENSOR_SIZE',
      message:
        /^tensor 'enc\.blk\.0\.attn\.qkv\.weight' \(f32 \[32, 97\]\) takes 12416 bytes \(12416 padded to 32\), but the next tensor 'enc\.blk\.0\.attn\.qkv\.bias' starts 12288 bytes after it: 'enc\.blk\.0\.attn\.qkv\.weight' has a wrong dim or type$/,
    },
  },
  {
    name: 'wrong-type',
    finding: 'a wrong type on one tensor was reported as a data-offset mismatch on the next tensor',
    giant: false,
    build: () => [patchTensor('ijepa', 'enc.blk.0.ffn.fc1.weight', (v, at) => v.setInt32(at - 4, 1, true))],
    expect: {
      code: 'GGUF_TENSOR_SIZE',
      message:
        /^tensor 'enc\.blk\.0\.ffn\.fc1\.weight' \(f16 \[32, 64\]\) takes 4096 bytes .*'enc\.blk\.0\.ffn\.fc1\.weight' has a wrong dim or type$/,
    },
  },
  {
    name: 'wrong-offset',
    finding: 'control: a lying offset is still blamed on the tensor whose offset it is',
    giant: false,
    build: () => [patchTensor('ijepa', 'enc.blk.0.attn.qkv.bias', (v, at) => v.setBigUint64(at, v.getBigUint64(at, true) + 64n, true))],
    expect: { code: 'GGUF_TENSOR_OFFSET', message: /^tensor 'enc\.blk\.0\.attn\.qkv\.bias' has data offset \d+, expected \d+/ },
  },
];
