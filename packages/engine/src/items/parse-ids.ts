// Token ids: an array of integers, or the CLI's text form.
import { badField } from '../errors.js';

const MAX_IDS = 1 << 16;

/** Token ids: an array of integers, or the CLI's text form (`a:b` for a..b-1, single ids, comma-joined). */
export function parseIds(value: unknown, field: string): number[] {
  if (value === undefined || value === null) throw badField(field, 'required', 'missing_field');
  const ids: number[] = [];
  const push = (id: number) => {
    if (ids.length >= MAX_IDS) throw badField(field, `more than ${MAX_IDS} ids`);
    ids.push(id);
  };
  if (Array.isArray(value)) {
    value.forEach((id, i) => {
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw badField(`${field}[${i}]`, 'must be a non-negative integer');
      push(id);
    });
  } else if (typeof value === 'string') {
    for (const part of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^(\d{1,7})(?::(\d{1,7}))?$/.exec(part);
      if (!m) throw badField(field, `'${part.slice(0, 40)}': use a:b (ids a to b-1), single ids, or both joined by commas`);
      const a = Number(m[1]);
      const b = m[2] === undefined ? a + 1 : Number(m[2]);
      if (b <= a) throw badField(field, `${part}: the range is empty`);
      if (b - a > MAX_IDS) throw badField(field, `more than ${MAX_IDS} ids`);
      for (let i = a; i < b; i++) push(i);
    }
  } else throw badField(field, 'must be an array of ids or a string like "0:16,20"');
  if (ids.length === 0) throw badField(field, 'names no token ids');
  return ids;
}
