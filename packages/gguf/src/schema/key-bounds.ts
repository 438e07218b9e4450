import { maxLabels } from '../budgets.js';
import { GgufError } from '../errors.js';
import type { GgufValueType } from '../gguf/value.js';
import type { KeyDef, KeyType } from './keys.js';
import { LIMITS } from './limits.js';

/**
 * How large a schema key's value may be, checked from the header's count or length before the value is read.
 * Array keys: at most `maxItems` items (and strings of at most `maxItemBytes` bytes each); string keys: at most
 * `maxBytes` bytes. Every bound is far above any real model and far below what would cost memory.
 */
export type KeyBound =
  | { readonly kind: 'array'; readonly itemType: GgufValueType; readonly maxItems: number; readonly why: string; readonly maxItemBytes?: number }
  | { readonly kind: 'string'; readonly maxBytes: number; readonly why: string }
  | { readonly kind: 'scalar' };

/** A string key is at most 1024 characters (general.name, general.license) or an enum word: 4 KiB of UTF-8 covers both. */
export const MAX_STRING_KEY_BYTES = 4 * 1024;
/** A label is at most 4096 characters (keys.ts), so at most 4·4096 bytes of UTF-8. */
export const MAX_LABEL_BYTES = 4 * 4096;

/** BPE merges a text vocabulary may have: CLIP's 48,894 and room for larger ones. */
export const MAX_MERGES = 2 ** 18;

const ARRAY_ITEM: Partial<Record<KeyType, GgufValueType>> = { 'f32[]': 'f32', 'u32[]': 'u32', 'string[]': 'string' };

export function keyBound(def: KeyDef): KeyBound {
  if (def.type === 'string') {
    return { kind: 'string', maxBytes: MAX_STRING_KEY_BYTES, why: `${MAX_STRING_KEY_BYTES} bytes, room for 1024 characters` };
  }
  const itemType = ARRAY_ITEM[def.type];
  if (itemType === undefined) return { kind: 'scalar' };
  switch (def.key) {
    case 'jepa.pre.mean':
    case 'jepa.pre.std':
      return { kind: 'array', itemType, maxItems: LIMITS.inChans[1], why: `one per channel, and jepa.enc.in_chans is at most ${LIMITS.inChans[1]}` };
    case 'jepa.enc.hier_layers':
      return { kind: 'array', itemType, maxItems: LIMITS.hierNorms[1], why: `one per hierarchy norm, at most ${LIMITS.hierNorms[1]}` };
    case 'jepa.text.merges':
      return { kind: 'array', itemType, maxItems: MAX_MERGES, why: `CLIP's vocabulary has 48894; at most ${MAX_MERGES}`, maxItemBytes: 1024 };
    case 'jepa.head.labels': {
      const max = maxLabels();
      return { kind: 'array', itemType, maxItems: max, why: `JEPA_MAX_LABELS=${max}; set it higher to allow`, maxItemBytes: MAX_LABEL_BYTES };
    }
    default:
      throw new Error(`schema bug: array key '${def.key}' has no bound in key-bounds.ts`);
  }
}

/** The refusal of an array key whose count is over its bound; the same text whichever path finds it. */
export function tooManyItems(def: KeyDef, bound: Extract<KeyBound, { kind: 'array' }>, count: number): GgufError {
  return new GgufError(
    def.key === 'jepa.head.labels' ? 'JEPA_BUDGET' : 'JEPA_RANGE',
    `metadata key '${def.key}' has ${count} items; the limit is ${bound.maxItems} (${bound.why})`,
  );
}

export function stringTooLong(def: KeyDef, bound: Extract<KeyBound, { kind: 'string' }>, bytes: number): GgufError {
  return new GgufError('JEPA_RANGE', `metadata key '${def.key}' is a string of ${bytes} bytes; the limit is ${bound.maxBytes} (${bound.why})`);
}
