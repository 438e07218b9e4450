// A request's items, checked field by field before anything is decoded: {image}, {video}, {frames},
// {tensor} (base64), or {path, kind?}; a video may carry `sampling`, which cuts it into windows.
import type { WindowOptions } from '@jepa/preprocess';
import { badField } from '../errors.js';
import { MAX_WINDOW_FRAMES } from '../schemas/request-fields.js';
import { decodeBase64 } from './base64.js';
import { fieldName } from './field-name.js';

export type ItemKind = 'image' | 'video' | 'frames' | 'tensor';
const KINDS: readonly ItemKind[] = ['image', 'video', 'frames', 'tensor'];

/** A long video's windows (spec windows-v1): the item's `sampling`, its field, and the options it gives. */
export interface Sampling {
  field: string;
  options: Partial<WindowOptions>;
}

export type ParsedItem = ({ field: string; kind: ItemKind; bytes: Buffer } | { field: string; kind: 'path'; path: string; as: ItemKind | null }) & {
  /** A video item to be cut into windows; absent, the video is one clip sampled over the whole file. */
  sampling?: Sampling;
};

const SAMPLING_KEYS: Readonly<Record<string, keyof WindowOptions>> = {
  fps: 'fps',
  frames: 'frames',
  window_seconds: 'windowSeconds',
  stride: 'stride',
  start: 'start',
  end: 'end',
};

/**
 * `sampling`: {fps?, frames?, window_seconds?, stride?, start?, end?}, numbers (start and end in
 * seconds of presentation time), checked field by field; the planner checks the rest against the video.
 */
export function parseSampling(value: unknown, field: string): Sampling {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badField(field, `must be an object with any of ${Object.keys(SAMPLING_KEYS).join(', ')}`);
  const options: Partial<WindowOptions> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = SAMPLING_KEYS[key];
    if (name === undefined || !Object.hasOwn(SAMPLING_KEYS, key))
      throw badField(`${field}.${fieldName(key)}`, `unknown field (sampling takes ${Object.keys(SAMPLING_KEYS).join(', ')})`, 'unknown_field');
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw badField(`${field}.${key}`, 'must be a finite number');
    options[name] = v;
  }
  const o = options;
  const at = (key: string) => `${field}.${key}`;
  if (o.fps !== undefined && !(o.fps > 0)) throw badField(at('fps'), `must be > 0 (frames per second), got ${o.fps}`);
  if (o.frames !== undefined && !(Number.isSafeInteger(o.frames) && o.frames >= 1 && o.frames <= MAX_WINDOW_FRAMES))
    throw badField(at('frames'), `must be a whole number from 1 to ${MAX_WINDOW_FRAMES}, got ${o.frames}`);
  if (o.windowSeconds !== undefined && !(o.windowSeconds > 0)) throw badField(at('window_seconds'), `must be > 0 seconds, got ${o.windowSeconds}`);
  if (o.stride !== undefined) {
    if (o.windowSeconds !== undefined && !(o.stride > 0))
      throw badField(at('stride'), `must be > 0 seconds (with window_seconds it is in seconds), got ${o.stride}`);
    if (o.windowSeconds === undefined && !(Number.isSafeInteger(o.stride) && o.stride >= 1))
      throw badField(at('stride'), `must be a whole number of samples >= 1 (seconds only with window_seconds), got ${o.stride}`);
  }
  for (const key of ['start', 'end'] as const)
    if (o[key] !== undefined && o[key] < 0) throw badField(at(key), `must be a time >= 0 seconds, got ${o[key]}`);
  if (o.start !== undefined && o.end !== undefined && !(o.end > o.start)) throw badField(at('end'), `(${o.end}) must be after start (${o.start})`);
  return { field, options };
}

/** One item: {image}, {video}, {frames}, {tensor} (base64), or {path, kind?}; a video may carry `sampling`. */
export function parseItem(value: unknown, field: string): ParsedItem {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badField(field, 'an item is an object with one of "image", "video", "frames", "tensor" or "path"', 'invalid_item');
  const keys = Object.keys(value);
  const v = value as Record<string, unknown>;
  const sampled = v.sampling !== undefined && v.sampling !== null;
  const sampling = sampled ? { sampling: parseSampling(v.sampling, `${field}.sampling`) } : {};
  if ('path' in v) {
    const extra = keys.filter((k) => k !== 'path' && k !== 'kind' && k !== 'sampling');
    if (extra.length > 0)
      throw badField(`${field}.${fieldName(extra[0]!)}`, 'unknown field (a path item takes "path", "kind" and "sampling")', 'unknown_field');
    let as: ItemKind | null = null;
    if (v.kind !== undefined) {
      if (typeof v.kind !== 'string' || !(KINDS as readonly string[]).includes(v.kind))
        throw badField(`${field}.kind`, `must be one of ${KINDS.join(', ')}`);
      as = v.kind as ItemKind;
    }
    if (typeof v.path !== 'string') throw badField(`${field}.path`, 'must be a string');
    // a path with sampling is a video whatever its extension
    if (sampled && as !== null && as !== 'video') throw badField(`${field}.kind`, `"${as}" takes no sampling; sampling cuts a video into windows`);
    return { field: `${field}.path`, kind: 'path', path: v.path, as: sampled ? 'video' : as, ...sampling };
  }
  const rest = keys.filter((k) => k !== 'sampling');
  const given = rest.filter((k) => (KINDS as readonly string[]).includes(k));
  if (given.length !== 1 || rest.length !== 1) {
    const unknown = rest.find((k) => !(KINDS as readonly string[]).includes(k));
    if (unknown !== undefined)
      throw badField(
        `${field}.${fieldName(unknown)}`,
        'unknown field (an item has one of "image", "video", "frames", "tensor" or "path")',
        'unknown_field',
      );
    throw badField(field, 'give exactly one of "image", "video", "frames", "tensor" or "path"', 'invalid_item');
  }
  const kind = given[0] as ItemKind;
  if (sampled && kind !== 'video')
    throw badField(`${field}.sampling`, `a "${kind}" item takes no sampling; sampling cuts a video into windows`, 'unknown_field');
  return { field: `${field}.${kind}`, kind, bytes: decodeBase64(`${field}.${kind}`, v[kind]), ...sampling };
}

/** Refuses the sampled items of a request to a route that takes clips whole. */
export function refuseSampling(items: readonly ParsedItem[]): void {
  for (const item of items)
    if (item.sampling) throw badField(item.sampling.field, 'sampling is for /v1/embeddings and /v1/classify', 'unsupported_field');
}

/** `input`: one item or an array of 1..maxItems items. */
export function parseItems(value: unknown, field: string, maxItems: number): ParsedItem[] {
  if (value === undefined || value === null) throw badField(field, 'required', 'missing_field');
  if (!Array.isArray(value)) return [parseItem(value, field)];
  if (value.length === 0) throw badField(field, 'holds no items', 'invalid_value');
  if (value.length > maxItems) throw badField(field, `${value.length} items; at most ${maxItems} per request (--max-queue)`, 'too_many_items');
  return value.map((item, i) => parseItem(item, `${field}[${i}]`));
}
