// A request body's fields checked against a shape of request-fields.ts: each present field parsed by
// its schema, a refusal naming the field and what it must be.
import type { z } from 'zod';
import { badField } from '../errors.js';

type Shape = Record<string, z.ZodType>;
export type Fields<S extends Shape> = { [K in keyof S]?: z.output<S[K]> };

/** The fields of `shape` that `body` gives (undefined and null count as absent), each checked. */
export function readFields<S extends Shape>(body: Readonly<Record<string, unknown>>, shape: S): Fields<S> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    const r = schema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const at = issue.path.length > 0 ? `${key}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}` : key;
      throw badField(at, problem(issue));
    }
    out[key] = r.data;
  }
  return out as Fields<S>;
}

/** What a zod issue asks for, in the engine's words. */
function problem(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'int' ? 'must be an integer' : `must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'array' ? `must hold at least ${issue.minimum} values` : `must be >= ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' ? `must hold at most ${issue.maximum} values` : `must be <= ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      return 'is not one of the accepted forms';
    default:
      return issue.message;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
