// One engine-fuzz input: a forged tiny model of a family and the mutations applied to it. Metadata
// mutations are structure-aware: the tensors are re-derived from the mutated metadata when it still
// parses, so a changed dim, head count or patch size reaches the graph instead of stopping at the
// shape check. A case is plain JSON, so a finding is kept and replayed by its file alone.
import {
  expectedTensors,
  FAMILIES,
  forgeHparams,
  forgeModelBytes,
  GgufError,
  hparamsToMetadata,
  parseHparams,
  type Family,
  type ForgeKnobs,
  type GgufValue,
  type ModelHparams,
} from '@jepa/gguf';

/** A metadata value as JSON: bigints and typed arrays spelled out. */
export type JsonValue =
  | { type: 'u32' | 'i32' | 'f32'; value: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { type: 'u64'; value: string }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: 'f32' | 'u32'; value: (number | 'NaN' | 'Infinity' | '-Infinity')[] }
  | { type: 'array'; itemType: 'string'; value: string[] };

export type Mutation =
  | { op: 'meta'; key: string; value: JsonValue | null }
  | { op: 'shape'; tensor: string; shape: number[] }
  | { op: 'type'; tensor: string; type: number }
  | { op: 'drop'; tensor: string }
  | { op: 'offset'; tensor: string; offset: string };

export interface EngineCase {
  family: Family;
  head: boolean;
  predictor: boolean;
  /** ggml type of every matmul weight (0 f32, 1 f16, 8 q8_0, 30 bf16). */
  matmulType: number;
  mutations: Mutation[];
}

/** Tensors of a re-derived model are forged only up to this many elements; past it the seed's tensors stay. */
const MAX_FORGED_ELEMENTS = 4 << 20;

const num = (v: number | 'NaN' | 'Infinity' | '-Infinity'): number => (typeof v === 'number' ? v : Number(v));
export const jsonNum = (v: number): number | 'NaN' | 'Infinity' | '-Infinity' =>
  Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';

export function toGgufValue(v: JsonValue): GgufValue {
  switch (v.type) {
    case 'u64':
      return { type: 'u64', value: BigInt(v.value) };
    case 'array':
      if (v.itemType === 'string') return { type: 'array', itemType: 'string', value: v.value };
      return v.itemType === 'f32'
        ? { type: 'array', itemType: 'f32', value: Float32Array.from(v.value.map(num)) }
        : { type: 'array', itemType: 'u32', value: Uint32Array.from(v.value.map(num)) };
    case 'u32':
    case 'i32':
    case 'f32':
      return { type: v.type, value: num(v.value) };
    default:
      return v;
  }
}

export function toJsonValue(v: GgufValue): JsonValue | null {
  switch (v.type) {
    case 'u32':
    case 'i32':
    case 'f32':
      return { type: v.type, value: jsonNum(v.value) };
    case 'u64':
      return { type: 'u64', value: String(v.value) };
    case 'bool':
      return { type: 'bool', value: v.value };
    case 'string':
      return { type: 'string', value: v.value };
    case 'array':
      if (v.itemType === 'string') return { type: 'array', itemType: 'string', value: [...(v.value as string[])] };
      if (v.itemType === 'f32' || v.itemType === 'u32')
        return { type: 'array', itemType: v.itemType, value: [...(v.value as ArrayLike<number> as number[])].map(jsonNum) };
      return null;
    default:
      return null;
  }
}

/** The seed's hparams of a case (before mutation). */
export function seedHparams(c: Pick<EngineCase, 'family' | 'head' | 'predictor'>): ModelHparams {
  return forgeHparams(c.family, { head: c.head, predictor: c.predictor });
}

/** The metadata a case's file declares: the seed's, with the metadata mutations applied in order. */
export function caseMetadata(c: EngineCase): Map<string, GgufValue> {
  const meta = new Map(hparamsToMetadata(seedHparams(c)));
  for (const m of c.mutations) {
    if (m.op !== 'meta') continue;
    if (m.value === null) meta.delete(m.key);
    else meta.set(m.key, toGgufValue(m.value));
  }
  return meta;
}

function elements(h: ModelHparams): number {
  let n = 0;
  for (const t of expectedTensors(h)) n += t.shape.reduce((a, b) => a * b, 1);
  return n;
}

/** The GGUF bytes of a case, and whether its tensors follow the mutated metadata ('derived') or the seed's. */
export function buildCase(c: EngineCase): { bytes: Uint8Array; tensors: 'derived' | 'seed' } {
  const seed = seedHparams(c);
  const meta = caseMetadata(c);
  let derived: ModelHparams | null = null;
  try {
    derived = parseHparams(meta);
    if (elements(derived) > MAX_FORGED_ELEMENTS) derived = null;
  } catch (e) {
    if (!(e instanceof GgufError)) throw e;
  }
  const h = derived ?? seed;
  const overrides: Record<string, GgufValue | null> = {};
  for (const [key] of hparamsToMetadata(h)) overrides[key] = null;
  for (const [key, value] of meta) overrides[key] = value;
  const knobs: ForgeKnobs = {
    edit: () => h,
    metadata: overrides,
    matmulType: c.matmulType,
    tensorShape: {},
    tensorType: {},
    dropTensors: [],
  };
  for (const m of c.mutations) {
    if (m.op === 'shape') knobs.tensorShape![m.tensor] = m.shape;
    else if (m.op === 'type') knobs.tensorType![m.tensor] = m.type;
    else if (m.op === 'drop') knobs.dropTensors!.push(m.tensor);
    else if (m.op === 'offset') knobs.lieOffset = { tensor: m.tensor, offset: BigInt(m.offset) };
  }
  return { bytes: forgeModelBytes(c.family, knobs).bytes, tensors: derived ? 'derived' : 'seed' };
}

export function isFamily(s: string): s is Family {
  return (FAMILIES as readonly string[]).includes(s);
}
