// Words as request items: `{"text": "…"}` or a plain string, alone or in an array with media items, as
// OpenAI's embeddings input takes them; and the lists of words a zero-shot classifier or a text query takes.
import { badField } from '../errors.js';
import { fieldName } from './field-name.js';
import { type ParsedItem, parseItem } from './parse-item.js';

export interface TextItem {
  field: string;
  kind: 'text';
  text: string;
}

/** An item of a request that takes words as well as media. */
export type InputItem = ParsedItem | TextItem;

export const isText = (item: InputItem): item is TextItem => item.kind === 'text';

/** The longest text taken, in UTF-16 units: the tokenizer keeps 77 tokens of it, so more is a mistake. */
export const MAX_TEXT_CHARS = 4096;

/** One text: a non-empty string of at most MAX_TEXT_CHARS. */
export function parseText(value: unknown, field: string): string {
  if (typeof value !== 'string') throw badField(field, 'must be a string');
  if (value.trim() === '') throw badField(field, 'must not be empty', 'invalid_text');
  if (value.length > MAX_TEXT_CHARS) throw badField(field, `${value.length} characters; at most ${MAX_TEXT_CHARS}`, 'text_too_long');
  return value;
}

/** One item: a string or `{text}` is words, anything else a media item (parseItem). */
export function parseInput(value: unknown, field: string): InputItem {
  if (typeof value === 'string') return { field, kind: 'text', text: parseText(value, field) };
  if (typeof value === 'number') throw badField(field, 'token ids are not taken; give the text itself', 'invalid_item');
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'text' in value) {
    const extra = Object.keys(value).find((k) => k !== 'text');
    if (extra !== undefined) throw badField(`${field}.${fieldName(extra)}`, 'unknown field (a text item takes "text")', 'unknown_field');
    return { field: `${field}.text`, kind: 'text', text: parseText((value as { text: unknown }).text, `${field}.text`) };
  }
  return parseItem(value, field);
}

/** `input`: one item or an array of 1..maxItems, each words (a string, `{text}`) or media. */
export function parseInputs(value: unknown, field: string, maxItems: number): InputItem[] {
  if (value === undefined || value === null) throw badField(field, 'required', 'missing_field');
  if (!Array.isArray(value)) return [parseInput(value, field)];
  if (value.length === 0) throw badField(field, 'holds no items', 'invalid_value');
  if (value.length > maxItems) throw badField(field, `${value.length} items; at most ${maxItems} per request (--max-queue)`, 'too_many_items');
  if (value.every((v) => typeof v === 'number') || value.some((v) => Array.isArray(v)))
    throw badField(field, 'token ids are not taken; give the text itself', 'invalid_item');
  return value.map((item, i) => parseInput(item, `${field}[${i}]`));
}

/** A list of texts (zero-shot labels): a string or an array of 1..max strings, each as parseText takes it. */
export function parseTexts(value: unknown, field: string, max: number): string[] {
  if (value === undefined || value === null) throw badField(field, 'required', 'missing_field');
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw badField(field, 'holds no texts', 'invalid_value');
  if (list.length > max) throw badField(field, `${list.length} texts; at most ${max}`, 'too_many_items');
  return list.map((v, i) => parseText(v, Array.isArray(value) ? `${field}[${i}]` : field));
}

/** Refuses words in a request to a route that takes media only. */
export function mediaOnly(items: readonly InputItem[]): ParsedItem[] {
  for (const item of items) if (isText(item)) throw badField(item.field, 'text is not taken here; give an image or a video', 'invalid_item');
  return items as ParsedItem[];
}
