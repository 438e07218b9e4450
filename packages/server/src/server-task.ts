// Request items -> tasks: each item of a request is checked, decoded into the tensor the model takes
// (the same ModelInput path as the CLI) and handed to its model's batcher.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { ModelSpec } from '@jepa/gguf';
import type { EncodeOutput } from '@jepa/graph';
import { Semaphore, isVideoOnly, type ItemTensor, type VideoWindowSource } from '@jepa/input';
import { readNpy, readVideoFrames, type NpyArray, type VideoWindow, type WindowOptions } from '@jepa/preprocess';
import { decodeBase64 } from './encoding.js';
import { badField, inputFailure, isInputError } from './errors.js';
import { fieldName } from './json.js';
import type { ServerMetrics } from './metrics.js';
import type { PathPolicy } from './paths.js';
import type { ModelSlot } from './server-context.js';
import { Dropped, dropReason, type Batcher, type DropReason, type Ticket } from './server-queue.js';

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

export interface LoadedItem {
  tensor: ItemTensor;
  /** A still image (or a single-frame tensor): it may share a graph with other stills of its shape. */
  still: boolean;
}

const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.mpg', '.mpeg', '.ts', '.flv', '.wmv', '.3gp', '.ogv']);

/** The most frames one window may take: a window's clip is decoded and preprocessed whole. */
export const MAX_WINDOW_FRAMES = 128;

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

/**
 * A preprocessed float32 tensor as one encoder item: [C, H, W] or [C, T, H, W] (a leading batch of
 * one is dropped), checked as the encoder checks it, so a bad item fails alone rather than its batch.
 */
export function tensorItem(field: string, spec: ModelSpec, npy: NpyArray): LoadedItem {
  if (npy.dtype !== 'float32') throw badField(field, `must be float32, got ${npy.dtype}`, 'invalid_tensor');
  let shape = [...npy.shape];
  if ((shape.length === 4 || shape.length === 5) && shape[0] === 1) shape = shape.slice(1);
  const e = spec.enc;
  if (!(shape.length === 3 || shape.length === 4) || !shape.every((d) => Number.isInteger(d) && d > 0))
    throw badField(field, `shape [${npy.shape.join(', ')}] is not [C, H, W] or [C, T, H, W]`, 'invalid_tensor');
  const frames = shape.length === 4 ? shape[1]! : 1;
  const [channels] = shape as [number];
  const height = shape[shape.length - 2]!;
  const width = shape[shape.length - 1]!;
  if (channels !== e.inChans) throw badField(field, `shape [${shape.join(', ')}]: the model takes ${e.inChans} channels`, 'invalid_tensor');
  const tubelet = e.imgTubeletSize !== null && frames === 1 ? e.imgTubeletSize : e.tubeletSize;
  if (frames % tubelet !== 0)
    throw badField(field, `shape [${shape.join(', ')}]: ${frames} frames are not a whole number of ${tubelet}-frame tubelets`, 'invalid_tensor');
  if (height < e.patchSize || width < e.patchSize)
    throw badField(field, `shape [${shape.join(', ')}]: a ${width}x${height} input is smaller than one ${e.patchSize}-pixel patch`, 'invalid_tensor');
  const data = npy.data as Float32Array;
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i]!)) throw badField(field, `value ${i} is not finite`, 'invalid_tensor');
  return { tensor: { data, shape }, still: frames === 1 && spec.family !== 'levjepa' };
}

/** Turns items into tensors; videos go through a private temp file for ffmpeg, removed afterwards. */
export class ItemLoader {
  readonly #ffmpeg = new Semaphore(2);

  constructor(
    readonly paths: PathPolicy,
    readonly tmpDir: string,
    readonly videoTimeoutSeconds: number,
  ) {}

  async load(slot: ModelSlot, item: ParsedItem): Promise<LoadedItem> {
    try {
      if (item.kind === 'path') return await this.#loadPath(slot, item.field, item.path, item.as);
      return await this.#loadBytes(slot, item.field, item.kind, item.bytes);
    } catch (err) {
      throw inputFailure(item.field, err);
    }
  }

  async #loadBytes(slot: ModelSlot, field: string, kind: ItemKind, bytes: Buffer): Promise<LoadedItem> {
    const spec = slot.spec;
    switch (kind) {
      case 'image':
        return this.#still(spec, await slot.input.imageBytes(bytes));
      case 'frames':
        return { tensor: await slot.input.framesNpy(bytes), still: false };
      case 'tensor':
        return tensorItem(field, spec, readNpy(bytes));
      case 'video': {
        const path = join(this.tmpDir, `${randomUUID()}.video`);
        await writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
        try {
          return await this.#video(slot, path, 'the video');
        } finally {
          await rm(path, { force: true });
        }
      }
    }
  }

  async #loadPath(slot: ModelSlot, field: string, path: string, as: ItemKind | null): Promise<LoadedItem> {
    const real = await this.paths.check(field, path);
    const ext = extname(real).toLowerCase();
    const kind = as ?? (ext === '.npy' ? null : VIDEO_EXTENSIONS.has(ext) ? 'video' : 'image');
    if (kind === 'image') return this.#still(slot.spec, await slot.input.image(real));
    if (kind === 'video') return this.#video(slot, real, path);
    const bytes = await readFile(real);
    if (kind === 'frames') return { tensor: await slot.input.framesNpy(bytes), still: false };
    const npy = readNpy(bytes);
    if (kind === null && npy.dtype === 'uint8') return { tensor: await slot.input.framesNpy(bytes), still: false };
    return tensorItem(field, slot.spec, npy);
  }

  /**
   * A sampled video's windows, planned (ffprobe) before any frame is decoded. A base64 video goes to a
   * private temp file that the caller removes (VideoWindows.close) once its windows are taken.
   */
  async windows(slot: ModelSlot, item: ParsedItem & { sampling: Sampling }): Promise<VideoWindows> {
    let path: string;
    let shownAs: string;
    let temp: string | null = null;
    if (item.kind === 'path') {
      path = await this.paths.check(item.field, item.path);
      shownAs = item.path;
    } else {
      temp = join(this.tmpDir, `${randomUUID()}.video`);
      await writeFile(temp, item.bytes, { flag: 'wx', mode: 0o600 });
      path = temp;
      shownAs = 'the video';
    }
    try {
      const source = await this.#ffmpeg.run(() => slot.input.videoWindows(path, item.sampling.options, this.videoTimeoutSeconds));
      return new VideoWindows(item, source, temp, (line) => (path === shownAs ? line : line.split(path).join(shownAs)));
    } catch (err) {
      if (temp !== null) await rm(temp, { force: true });
      if (err instanceof Error && path !== shownAs) err.message = err.message.split(path).join(shownAs);
      // the windows asked for do not fit the video (an empty range, ...): the sampling's fault
      if (isInputError(err) && err.code === 'invalid_argument') throw badField(item.sampling.field, err.message, 'invalid_sampling');
      throw inputFailure(item.field, err);
    }
  }

  #still(spec: ModelSpec, tensor: ItemTensor): LoadedItem {
    return { tensor, still: !isVideoOnly(spec) && tensor.shape.length === 3 };
  }

  async #video(slot: ModelSlot, path: string, shownAs: string): Promise<LoadedItem> {
    const frames = await this.#ffmpeg.run(async () => {
      try {
        return await readVideoFrames(path, slot.spec.enc.nFrames, { timeoutSeconds: this.videoTimeoutSeconds });
      } catch (err) {
        if (err instanceof Error && shownAs !== path) err.message = err.message.split(path).join(shownAs);
        throw err;
      }
    });
    return { tensor: await slot.input.clip(frames), still: false };
  }
}

/** What one request holds: its place in the queue, and the signal that drops its queued items. */
export class RequestScope {
  readonly #controller = new AbortController();

  constructor(readonly ticket: Ticket) {
    // every queued item of the request listens for the drop
    setMaxListeners(0, this.#controller.signal);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get dropped(): DropReason | null {
    return this.#controller.signal.aborted ? dropReason(this.#controller.signal) : null;
  }

  drop(reason: DropReason): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}

export interface EncodedItem {
  /** The item's encoder output, a batch of one. */
  out: EncodeOutput;
  /** The item's tensor shape, [C, H, W] or [C, T, H, W]. */
  shape: number[];
  /** The item's tensor values (the network input). */
  data: Float32Array;
}

/** The windows of one sampled video: its decode, and its temp file when it came as base64. */
export class VideoWindows {
  #closed = false;

  constructor(
    readonly item: ParsedItem,
    readonly source: VideoWindowSource,
    readonly temp: string | null,
    readonly show: (line: string) => string,
  ) {}

  get windows(): readonly VideoWindow[] {
    return this.source.windows;
  }

  /** Window k's clip (taken in order), or null when the video ended before it. */
  async take(k: number): Promise<ItemTensor | null> {
    if (this.#closed) throw new Dropped('failed');
    try {
      return await this.source.take(k);
    } catch (err) {
      if (err instanceof Error) err.message = this.show(err.message);
      throw err;
    }
  }

  get warning(): string | null {
    const w = this.source.warning;
    return w === null ? null : this.show(w);
  }

  /** Stops the decode and removes the temp file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.source.close();
    } finally {
      if (this.temp !== null) await rm(this.temp, { force: true });
    }
  }
}

/** One unit of work: an item whole, or one window of a sampled item. */
export interface PlannedUnit {
  /** The item's place in the request. */
  index: number;
  item: ParsedItem;
  window: { video: VideoWindows; k: number; at: VideoWindow } | null;
}

/**
 * A request's items with the sampled videos expanded into their windows, in order. `count` is what
 * the request holds in the queue; `close` (after the request, however it ends) stops the decodes and
 * removes the temp files.
 */
export class PlannedItems {
  readonly units: PlannedUnit[] = [];
  readonly videos: VideoWindows[] = [];

  get count(): number {
    return this.units.length;
  }

  /** The one-line warnings of the truncated videos, in item order. */
  warnings(): string[] {
    return this.videos.map((v) => v.warning).filter((w): w is string => w !== null);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.videos.map((v) => v.close()));
  }
}

/**
 * Plans the sampled items' windows (ffprobe, no decode yet) and refuses a request whose items and
 * windows together are more than `maxItems` (--max-queue). Without sampled items it is the items as given.
 */
export async function planItems(loader: ItemLoader, slot: ModelSlot, items: readonly ParsedItem[], maxItems: number): Promise<PlannedItems> {
  const planned = new PlannedItems();
  try {
    for (const [index, item] of items.entries()) {
      if (!item.sampling) {
        planned.units.push({ index, item, window: null });
        continue;
      }
      const video = await loader.windows(slot, item as ParsedItem & { sampling: Sampling });
      planned.videos.push(video);
      for (const [k, at] of video.windows.entries()) planned.units.push({ index, item, window: { video, k, at } });
      if (planned.count + (items.length - index - 1) > maxItems)
        throw badField(
          item.sampling.field,
          `${video.windows.length} windows make the request ${planned.count + items.length - index - 1} items; at most ${maxItems} per request (--max-queue)`,
          'too_many_items',
        );
    }
    return planned;
  } catch (err) {
    await planned.close();
    throw err;
  }
}

/** A window's place in its video, as the responses give it. */
export interface WindowPlace {
  window: number;
  start_s: number;
  end_s: number;
  frames: number[];
}

export interface PlannedEncoded extends EncodedItem {
  /** The item's place in the request. */
  index: number;
  /** Where the window lies, for a window of a sampled video. */
  place: WindowPlace | null;
}

/** Windows of one video loaded ahead of the encoder at most (their clips wait in memory). */
function lookahead(slot: ModelSlot): number {
  return Math.min(32, Math.max(2, 2 * slot.options.maxBatch));
}

/**
 * Every unit of a planned request through its model's batcher, in order: items whole, and each
 * sampled video's windows from its one decode (a few ahead of the encoder; windows of one video share
 * a shape, so they may share graphs). A window the truncated video never completed is left out, and
 * `warnings` says so.
 */
export async function encodePlanned(
  ctx: { loader: ItemLoader; metrics: ServerMetrics },
  slot: ModelSlot,
  planned: PlannedItems,
  scope: RequestScope,
): Promise<{ encoded: PlannedEncoded[]; warnings: string[] }> {
  const gates = new Map(planned.videos.map((v) => [v, new Semaphore(lookahead(slot))]));
  const all = await Promise.all(
    planned.units.map(async (unit): Promise<PlannedEncoded | null> => {
      const w = unit.window;
      if (w === null) {
        const e = await encodeUnit(ctx, slot, unit.item.field, scope, () => ctx.loader.load(slot, unit.item));
        return e && { ...e, index: unit.index, place: null };
      }
      const e = await gates.get(w.video)!.run(() =>
        encodeUnit(ctx, slot, unit.item.field, scope, async () => {
          const tensor = await w.video.take(w.k);
          return tensor && { tensor, still: true };
        }),
      );
      return e && { ...e, index: unit.index, place: { window: w.at.window, start_s: w.at.startS, end_s: w.at.endS, frames: [...w.at.frames] } };
    }),
  );
  return { encoded: all.filter((e): e is PlannedEncoded => e !== null), warnings: planned.warnings() };
}

/**
 * Every item of a request through its model's batcher, in order. The first failure drops the
 * request's other queued items and is what the request answers with. `batcher`: another of the
 * model's encoders (the predictor's hierarchy-mode one) instead of the shared one.
 */
export async function encodeItems(
  ctx: { loader: ItemLoader; metrics: ServerMetrics },
  slot: ModelSlot,
  items: readonly ParsedItem[],
  scope: RequestScope,
  batcher: Batcher = slot.batcher,
): Promise<EncodedItem[]> {
  refuseSampling(items);
  return Promise.all(items.map(async (item) => (await encodeUnit(ctx, slot, item.field, scope, () => ctx.loader.load(slot, item), batcher))!));
}

/** One unit: loaded (null: a window the video never completed), then encoded; it gives its queue place back either way. */
async function encodeUnit(
  { metrics }: { metrics: ServerMetrics },
  slot: ModelSlot,
  field: string,
  scope: RequestScope,
  load: () => Promise<LoadedItem | null>,
  batcher: Batcher = slot.batcher,
): Promise<EncodedItem | null> {
  try {
    if (scope.dropped) throw new Dropped(scope.dropped);
    const arrived = batcher.announce();
    let loaded: LoadedItem | null;
    try {
      loaded = await load();
    } finally {
      arrived();
    }
    if (loaded === null) return null;
    return { out: await batcher.encode(loaded.tensor, loaded.still, scope.signal), shape: loaded.tensor.shape, data: loaded.tensor.data };
  } catch (err) {
    if (err instanceof Dropped) metrics.droppedItems.inc({ reason: err.reason });
    const failure = err instanceof Dropped ? err : inputFailure(field, err);
    scope.drop('failed');
    throw failure;
  } finally {
    scope.ticket.release(1);
  }
}

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

/**
 * Action sequences: [T][A] or [K][T][A] numbers, or a base64 float32 .npy of either shape.
 * Returns them flat, [K, T, A].
 */
export function parseActions(value: unknown, field: string, actionDim: number): { data: Float32Array; candidates: number; steps: number } {
  if (typeof value === 'string') {
    const npy = readNpyField(field, decodeBase64(field, value));
    const s = npy.shape;
    if (npy.dtype !== 'float32' || !((s.length === 2 || s.length === 3) && s[s.length - 1] === actionDim) || s.some((d) => d < 1))
      throw badField(field, `expected float32 [T, ${actionDim}] or [K, T, ${actionDim}], got ${npy.dtype} [${s.join(', ')}]`);
    const data = npy.data as Float32Array;
    if (!data.every(Number.isFinite)) throw badField(field, 'holds a value that is not finite');
    return { data, candidates: s.length === 3 ? s[0]! : 1, steps: s[s.length - 2]! };
  }
  if (!Array.isArray(value) || value.length === 0)
    throw badField(field, `must be [T][${actionDim}] or [K][T][${actionDim}] numbers, or a base64 .npy`);
  const three = Array.isArray(value[0]) && Array.isArray((value[0] as unknown[])[0]);
  const candidates = (three ? value : [value]) as unknown[];
  let steps = -1;
  const out: number[] = [];
  candidates.forEach((cand, k) => {
    const cf = three ? `${field}[${k}]` : field;
    if (!Array.isArray(cand) || cand.length === 0) throw badField(cf, 'must be a non-empty array of steps');
    if (steps < 0) steps = cand.length;
    if (cand.length !== steps) throw badField(cf, `has ${cand.length} steps; the first candidate has ${steps}`);
    cand.forEach((row, t) => {
      const rf = `${cf}[${t}]`;
      if (!Array.isArray(row)) throw badField(rf, `must be an array of ${actionDim} numbers`);
      if (row.length !== actionDim) throw badField(rf, `every step needs ${actionDim} values (the model's action width), got ${row.length}`);
      row.forEach((x, a) => {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw badField(`${rf}[${a}]`, 'must be a finite number');
        out.push(x);
      });
    });
  });
  return { data: Float32Array.from(out), candidates: candidates.length, steps };
}

function readNpyField(field: string, bytes: Uint8Array): NpyArray {
  try {
    return readNpy(bytes);
  } catch (err) {
    throw inputFailure(field, err);
  }
}
