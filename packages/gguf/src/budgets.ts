import { GgufError } from './errors.js';

/**
 * The limits that keep a hostile but well-formed file from costing more than it is worth: checked from the
 * header's counts and lengths before anything of that size is allocated. The env-overridable ones are read at
 * each check, so a process (or a test) may change them at run time. Documented in docs/gguf-schema.md ("Budgets").
 */

/** V8's String::kMaxLength on 64-bit hosts: a longer string cannot exist, whatever the memory. */
export const V8_MAX_STRING_LENGTH = 2 ** 29 - 24;
/**
 * V8 aborts the process (not a catchable error) near 2^27 elements in one JS array; the reader never builds a JS
 * array (strings, bools, nested arrays) anywhere near that, whatever the env says.
 */
export const V8_SAFE_ARRAY_LENGTH = 2 ** 26;
/** Metadata keys are short; a longer one is refused before it is read. */
export const GGUF_MAX_KEY_LENGTH = 64 * 1024;
/**
 * Under `loadModelSpec`, a key the schema does not define is materialised only when its value takes at most this
 * many bytes (so `jepa info --kv` and the quantizer still see small foreign keys); larger ones are skipped by their
 * byte extent and listed in `header.skipped`.
 */
export const UNUSED_VALUE_MAX_BYTES = 1024 * 1024;

/**
 * Under `loadModelSpec`, a string or nested array of more items than this under a key that is refused anyway (an
 * unknown jepa.* key, a schema key of the wrong stored type) is refused at once from its count, not walked: walking
 * 10^8 inline lengths costs seconds.
 */
export const WALK_FREE_ITEMS = 2 ** 16;

function envLimit(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1 || v > max) {
    throw new GgufError('GGUF_BAD_LIMIT', `${name}=${raw} is not an integer in [1, ${max}]`);
  }
  return v;
}

/** JEPA_MAX_INPUT_MIB (default 2048): the float32 input tensor of one item (C·T·H·W·4 bytes) the recipe asks for. */
export const maxInputMib = (): number => envLimit('JEPA_MAX_INPUT_MIB', 2048, 2 ** 30);
/** JEPA_MAX_LABELS (default 65536): entries of jepa.head.labels. */
export const maxLabels = (): number => envLimit('JEPA_MAX_LABELS', 65536, 2 ** 22);
/** JEPA_MAX_META_ITEMS (default 2^24): string, bool and nested-array items the reader materialises in one file. */
export const maxMetaItems = (): number => envLimit('JEPA_MAX_META_ITEMS', 2 ** 24, V8_SAFE_ARRAY_LENGTH);

/** "12.0 GiB", "3.1 MiB": for refusals that name a size. */
export function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}
