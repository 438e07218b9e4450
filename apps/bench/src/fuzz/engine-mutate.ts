// Random engine-fuzz cases: a seed of every family (with and without head and predictor, f32 / f16 /
// q8_0 matmuls) and one to four mutations of its metadata values (within and past their bounds) or
// of its tensor table (shapes, types, missing tensors, lying offsets).
import { expectedTensors, FAMILIES, FAMILY_TRAITS, KEYS, type GgufValue } from '@jepa/gguf';
import { caseMetadata, jsonNum, seedHparams, type EngineCase, type JsonValue, type Mutation } from './engine-case.js';

export type Rng = () => number;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const int = (rng: Rng, n: number) => Math.floor(rng() * n);

/** Values worth trying for a u32 key, beside the current one's neighbours, half and double. */
const U32_EDGES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 33, 64, 65, 1024, 65535, 65536, 65537, 2 ** 20, 2 ** 31 - 1, 2 ** 32 - 1];
const F32_EDGES = [Number.NaN, Infinity, -Infinity, 0, -0, -1, 1, 1e-45, 1e-30, 0.5, 2, 1e10, 3.4e38];
const STRINGS = [
  '',
  'gelu',
  'silu',
  'relu',
  'gelu_tanh',
  'tiled',
  'interleaved',
  'rope3d',
  'learned',
  'sincos2d',
  'sincos3d',
  'table',
  'masked',
  'action',
  'ac',
  'attentive',
  'linear',
  'mlp',
  'swiglu',
  'causal',
  'full',
  'bicubic',
  'bilinear',
  'round',
  'floor',
  'x',
];

/** The keys a case mutates most: the ones that shape the graph. */
const SHAPING = KEYS.map((k) => k.key).filter((k) => /^jepa\.(enc|pred|head|pre)\./.test(k));

function u32Near(rng: Rng, current: number | undefined): number {
  const c = current ?? 4;
  const r = rng();
  if (r < 0.35) return pick(rng, U32_EDGES);
  if (r < 0.6) return Math.max(0, c + pick(rng, [-2, -1, 1, 2]));
  if (r < 0.75) return c * 2;
  if (r < 0.85) return Math.floor(c / 2);
  return c * pick(rng, [3, 4, 8]);
}

function f32Near(rng: Rng, current: number | undefined): number {
  const c = current ?? 1;
  return rng() < 0.6 ? pick(rng, F32_EDGES) : Math.fround(c * pick(rng, [-1, 0.5, 2, 10, 1e-3]));
}

function mutateValue(rng: Rng, type: string, current: GgufValue | undefined): JsonValue | null {
  if (rng() < 0.05) return null; // remove the key
  const cur = current && 'value' in current ? current.value : undefined;
  switch (type) {
    case 'u32':
      return rng() < 0.05 ? { type: 'i32', value: -1 } : { type: 'u32', value: u32Near(rng, typeof cur === 'number' ? cur : undefined) };
    case 'f32':
      return { type: 'f32', value: jsonNum(f32Near(rng, typeof cur === 'number' ? cur : undefined)) };
    case 'bool':
      return { type: 'bool', value: typeof cur === 'boolean' ? !cur : rng() < 0.5 };
    case 'string':
      return { type: 'string', value: pick(rng, STRINGS) };
    case 'u32[]': {
      const old = cur instanceof Uint32Array ? [...cur] : [1];
      const r = rng();
      const next = r < 0.3 ? [] : r < 0.6 ? old.map((v) => u32Near(rng, v)) : [...old, u32Near(rng, old.at(-1))];
      return { type: 'array', itemType: 'u32', value: next };
    }
    case 'f32[]': {
      const old = cur instanceof Float32Array ? [...cur] : [0.5, 0.5, 0.5];
      const r = rng();
      const next = r < 0.2 ? old.slice(0, int(rng, old.length)) : r < 0.3 ? [...old, 0.5] : old.map((v) => (rng() < 0.5 ? f32Near(rng, v) : v));
      return { type: 'array', itemType: 'f32', value: next.map(jsonNum) };
    }
    case 'string[]': {
      const old = Array.isArray(cur) ? (cur as string[]) : [];
      const r = rng();
      const next = r < 0.3 ? [] : r < 0.6 ? old.slice(0, Math.max(0, old.length - 1)) : [...old, 'extra', ''];
      return { type: 'array', itemType: 'string', value: next };
    }
    default:
      return null;
  }
}

function metaMutation(rng: Rng, c: EngineCase): Mutation {
  const meta = caseMetadata(c);
  const present = [...meta.keys()].filter((k) => SHAPING.includes(k));
  const key = rng() < 0.8 && present.length > 0 ? pick(rng, present) : pick(rng, SHAPING);
  const def = KEYS.find((k) => k.key === key)!;
  return { op: 'meta', key, value: mutateValue(rng, def.type, meta.get(key)) };
}

function tensorMutation(rng: Rng, c: EngineCase): Mutation {
  const tensors = expectedTensors(seedHparams(c));
  const t = pick(rng, tensors);
  const r = rng();
  if (r < 0.4) {
    const shape = [...t.shape];
    const i = int(rng, shape.length);
    shape[i] = pick(rng, [0, 1, Math.max(1, shape[i]! - 1), shape[i]! + 1, shape[i]! * 2]);
    if (rng() < 0.2) shape.push(pick(rng, [1, 2]));
    return { op: 'shape', tensor: t.name, shape };
  }
  if (r < 0.7) return { op: 'type', tensor: t.name, type: pick(rng, [0, 1, 2, 8, 12, 14, 24, 26, 28, 30, 40, 99]) };
  if (r < 0.85) return { op: 'drop', tensor: t.name };
  return { op: 'offset', tensor: t.name, offset: String(pick(rng, [0n, 32n, 1n << 20n, 1n << 40n, (1n << 64n) - 32n])) };
}

/** A fresh random case: a seed and 1..4 mutations (three in four of them metadata). */
export function randomCase(rng: Rng): EngineCase {
  const family = pick(rng, FAMILIES);
  const traits = FAMILY_TRAITS[family];
  const c: EngineCase = {
    family,
    head: traits.head !== null && rng() < 0.7,
    predictor: traits.predictorRequired || (traits.predictors.length > 0 && rng() < 0.7),
    matmulType: pick(rng, [0, 0, 1, 8]),
    mutations: [],
  };
  const n = 1 + int(rng, 4);
  for (let i = 0; i < n; i++) c.mutations.push(rng() < 0.75 ? metaMutation(rng, c) : tensorMutation(rng, c));
  return c;
}
