import { WALK_FREE_ITEMS } from '../budgets.js';
import { GgufError } from '../errors.js';
import type { GgufValueDecision, GgufValueHead, ReadOptions } from '../gguf/reader.js';
import { keyBound, stringTooLong, tooManyItems } from './key-bounds.js';
import { unknownKey } from './metadata-values.js';
import { KEY_INDEX } from './keys.js';

const storedAs = (h: GgufValueHead) => (h.type === 'array' ? `array of ${h.itemType}` : h.type);

/**
 * The reader policy of `loadModelSpec`: costs every value from its head before reading it.
 * - A `jepa.*` key the schema does not define is skipped by its byte extent (the schema refuses it by name, in
 *   order, without its value ever being built); one holding more than WALK_FREE_ITEMS strings or arrays is
 *   refused at once, unwalked.
 * - Another foreign key is read when it takes at most UNUSED_VALUE_MAX_BYTES, else skipped.
 * - A schema key over its bound (keyBound) is refused from its count or length, naming the bound.
 * - A schema key of the wrong stored type is read when small (the schema refuses it in order, as ever), and
 *   refused at once when large (over UNUSED_VALUE_MAX_BYTES, or over WALK_FREE_ITEMS strings or arrays).
 * - String and nested arrays that are walked count against JEPA_MAX_META_ITEMS, as materialised ones do.
 */
export function schemaReadOptions(): ReadOptions {
  return { onValue: schemaValuePolicy };
}

/** A string or nested array too long to walk for a key that is refused whatever it holds. */
const costlyToWalk = (h: GgufValueHead) => h.type === 'array' && (h.itemType === 'string' || h.itemType === 'array') && h.count! > WALK_FREE_ITEMS;

export function schemaValuePolicy(head: GgufValueHead): GgufValueDecision {
  const def = KEY_INDEX.get(head.key);
  if (def === undefined) {
    if (!head.key.startsWith('jepa.')) return { action: 'read-small' };
    if (costlyToWalk(head)) throw unknownKey(head.key, `an array of ${head.count} ${head.itemType} items, refused without walking it`);
    return { action: 'skip' };
  }
  const bound = keyBound(def);
  const typeError = (what: string) =>
    new GgufError('JEPA_KEY_TYPE', `metadata key '${def.key}' must be stored as ${def.type}, found ${storedAs(head)} (${what})`);
  const wrongType: GgufValueDecision = { action: 'read-small', onLarge: (nbytes) => typeError(`${nbytes} bytes, not read`) };
  if (head.type === 'array') {
    if (bound.kind !== 'array' || head.itemType !== bound.itemType) {
      if (costlyToWalk(head)) throw typeError(`${head.count} items, not read`);
      return wrongType;
    }
    if (head.count! > bound.maxItems) throw tooManyItems(def, bound, head.count!);
    return bound.maxItemBytes === undefined ? { action: 'read' } : { action: 'read', maxItemLength: bound.maxItemBytes };
  }
  if (head.type === 'string') {
    if (bound.kind !== 'string') return wrongType;
    if (head.byteLength! > bound.maxBytes) throw stringTooLong(def, bound, head.byteLength!);
  }
  return { action: 'read' };
}
