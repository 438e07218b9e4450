// Request bodies: JSON with a bounded nesting depth, and the readers of their fields.
import { badField, fieldName } from '@jepa/engine';

/** Deep enough for every request shape ([K][T][A] actions inside an object); a nesting bomb is refused before it is parsed. */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of objects and arrays in JSON text (strings skipped), stopping once past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw badField('body', 'empty; send a JSON object', 'invalid_json');
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw badField('body', `nested deeper than ${MAX_JSON_DEPTH} levels`, 'invalid_json');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badField('body', `not valid JSON (${(err as Error).message.slice(0, 200)})`, 'invalid_json');
  }
}

export type Body = Record<string, unknown>;

/** Fields every POST route takes: OpenAI's `user` (ignored) and the request's deadline (call-options.ts). */
const EVERY_ROUTE = ['user', 'timeout'];

/** The body as an object whose keys are all known (a misspelt option is an error, not a default). */
export function objectBody(value: unknown, known: readonly string[]): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badField('body', 'must be a JSON object', 'invalid_body');
  for (const key of Object.keys(value)) {
    if (!known.includes(key) && !EVERY_ROUTE.includes(key))
      throw badField(fieldName(key), `unknown field (this endpoint takes ${[...known, 'timeout'].join(', ')})`, 'unknown_field');
  }
  return value as Body;
}

export function optionalChoice<T extends string>(body: Body, key: string, choices: readonly T[], fallback: T | undefined): T | undefined {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v))
    throw badField(key, `must be one of ${choices.map((c) => `"${c}"`).join(', ')}`);
  return v as T;
}
