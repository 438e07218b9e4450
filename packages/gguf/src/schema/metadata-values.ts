import type { z } from 'zod';
import { GgufError } from '../errors.js';
import type { GgufMetadata, GgufValue } from '../gguf/value.js';
import { keyBound, tooManyItems } from './key-bounds.js';
import { KEY_INDEX, type KeyDef, type KeyType } from './keys.js';

export type KeyValue = number | boolean | string | number[] | string[];

/**
 * Typed access to the schema's keys. Each read checks the stored GGUF type, finiteness and the key's zod domain;
 * reads are recorded so that keys the family never uses can be refused instead of ignored.
 */
export class MetadataValues {
  private readonly used = new Set<string>();

  private readonly skipped: ReadonlySet<string>;

  /** `skipped`: keys the reader walked past without materialising (header.skipped); they count as present. */
  constructor(
    private readonly metadata: GgufMetadata,
    skipped: Iterable<string> = [],
  ) {
    this.skipped = new Set(skipped);
  }

  has(key: string): boolean {
    return this.metadata.has(key) || this.skipped.has(key);
  }

  private *allKeys(): Iterable<string> {
    yield* this.metadata.keys();
    yield* this.skipped;
  }

  /** The key's value, or null when absent; a present key is always checked. */
  opt<T extends KeyValue>(key: string): T | null {
    const def = KEY_INDEX.get(key);
    if (def === undefined) throw new Error(`schema bug: '${key}' is not in KEYS`);
    this.used.add(key);
    const raw = this.metadata.get(key);
    if (raw === undefined && this.skipped.has(key)) {
      throw new GgufError('JEPA_KEY_TYPE', `metadata key '${key}' was skipped unread by the reader's policy, so it cannot be checked`);
    }
    if (raw === undefined) return null;
    return checkDomain(def, toPlain(def, raw)) as T;
  }

  req<T extends KeyValue>(key: string, why: string): T {
    const v = this.opt<T>(key);
    if (v === null) throw new GgufError('JEPA_KEY_MISSING', `metadata key '${key}' is missing (${why})`);
    return v;
  }

  /** Reads without marking the key as used (for checks that come before the family is known). */
  peek(key: string): GgufValue | undefined {
    return this.metadata.get(key);
  }

  /** Every jepa.* key must be known to the schema and used by this family's configuration. */
  refuseUnknownKeys(): void {
    for (const key of this.allKeys()) {
      if (key.startsWith('jepa.') && !KEY_INDEX.has(key)) throw unknownKey(key);
    }
  }

  refuseUnusedKeys(family: string): void {
    for (const key of this.allKeys()) {
      if (key.startsWith('jepa.') && !this.used.has(key)) {
        throw new GgufError('JEPA_KEY_UNUSED', `metadata key '${key}' does not apply to this ${family} model`);
      }
    }
  }
}

export function unknownKey(key: string, note?: string): GgufError {
  return new GgufError('JEPA_KEY_UNKNOWN', `metadata key '${key}' is not part of jepa schema v1${note ? ` (${note})` : ''}`);
}

const STORED: Record<KeyType, (v: GgufValue) => boolean> = {
  u32: (v) => v.type === 'u32',
  f32: (v) => v.type === 'f32',
  bool: (v) => v.type === 'bool',
  string: (v) => v.type === 'string',
  'f32[]': (v) => v.type === 'array' && v.itemType === 'f32',
  'u32[]': (v) => v.type === 'array' && v.itemType === 'u32',
  'string[]': (v) => v.type === 'array' && v.itemType === 'string',
};

function describe(v: GgufValue): string {
  return v.type === 'array' ? `array of ${v.itemType}` : v.type;
}

function toPlain(def: KeyDef, v: GgufValue): KeyValue {
  if (!STORED[def.type](v)) {
    throw new GgufError('JEPA_KEY_TYPE', `metadata key '${def.key}' must be stored as ${def.type}, found ${describe(v)}`);
  }
  if (v.type === 'array') {
    const bound = keyBound(def);
    if (bound.kind === 'array' && v.value.length > bound.maxItems) throw tooManyItems(def, bound, v.value.length);
    const items = v.itemType === 'string' ? [...(v.value as string[])] : Array.from(v.value as Float32Array | Uint32Array);
    items.forEach((x, i) => {
      if (typeof x === 'number' && !Number.isFinite(x)) {
        throw new GgufError('JEPA_NOT_FINITE', `metadata key '${def.key}'[${i}] = ${x} is not finite`);
      }
    });
    return items as number[] | string[];
  }
  if (v.type === 'f32' && !Number.isFinite(v.value)) {
    throw new GgufError('JEPA_NOT_FINITE', `metadata key '${def.key}' = ${v.value} is not finite`);
  }
  return v.value as KeyValue;
}

function checkDomain(def: KeyDef, value: KeyValue): KeyValue {
  const r = def.schema.safeParse(value);
  if (r.success) return value;
  throw issueToError(def.key, value, r.error.issues[0]);
}

function issueToError(key: string, value: KeyValue, issue: z.core.$ZodIssue): GgufError {
  const at = issue.path.length > 0 ? `'${key}'[${issue.path.join('][')}]` : `'${key}'`;
  const shown = issue.path.length > 0 ? (value as unknown[])[Number(issue.path[0])] : value;
  switch (issue.code) {
    case 'too_small':
      return new GgufError(
        'JEPA_RANGE',
        `metadata key ${at} = ${fmt(shown)} is below the minimum ${issue.minimum}${issue.inclusive === false ? ' (exclusive)' : ''}`,
      );
    case 'too_big':
      return new GgufError('JEPA_RANGE', `metadata key ${at} = ${fmt(shown)} is above the maximum ${issue.maximum}`);
    case 'invalid_value':
      return new GgufError('JEPA_ENUM', `metadata key ${at} = ${fmt(shown)} is not one of ${issue.values.map(fmt).join(', ')}`);
    default:
      return new GgufError('JEPA_RANGE', `metadata key ${at} = ${fmt(shown)} is invalid: ${issue.message}`);
  }
}

/** A value as a refusal shows it: long strings and arrays are cut, so a refusal stays one short line. */
function fmt(v: unknown): string {
  if (typeof v === 'string') return v.length > 80 ? `'${v.slice(0, 40)}…' (${v.length} characters)` : `'${v}'`;
  if (Array.isArray(v)) return `[${v.slice(0, 8).map(fmt).join(', ')}${v.length > 8 ? `, … (${v.length} items)` : ''}]`;
  return String(v);
}
