// What `jepa index add` and `jepa search` share: the model's identity in an index, the corpus items of
// an image or a video (its windows with the window options, else one clip), and embedding them with
// the engine's pooling, as `jepa embed` does.
import { extname, resolve } from 'node:path';
import { type CorpusItem, type CorpusRecord, embedCorpus } from '@jepa/corpus';
import { loadModelSpec, type ModelSpec } from '@jepa/gguf';
import { ModelInput, type VideoWindowSource } from '@jepa/input';
import type { WindowOptions } from '@jepa/preprocess';
import { type IndexModel, modelIdentity } from '@jepa/search';
import { type Pool, pooledWidth } from '@jepa/session';
import { say } from '../display-text.js';
import { type InputFlags, inputOptions } from '../input-options.js';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { resolvePool } from '../pool-option.js';
import { aboutFile, checkInputFile, UserError } from '../user-error.js';
import { windowItems } from './window-items.js';

export const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.mpg', '.mpeg', '.flv', '.wmv', '.3gp', '.ogv']);

export const isVideo = (path: string) => VIDEO_EXTENSIONS.has(extname(path).toLowerCase());

export interface IndexedModel {
  path: string;
  spec: ModelSpec;
  pool: Pool;
  identity: IndexModel;
}

/** The model file's spec, pooling and identity; refuses a pooling that is not one vector per item. */
export function indexedModel(path: string, pool: Pool | undefined): IndexedModel {
  checkInputFile(path, '-m');
  const spec = aboutFile(`-m ${path}`, path, () => loadModelSpec(path));
  const p = resolvePool(spec, pool);
  if (p !== 'mean' && p !== 'cls' && p !== 'cls+mean' && p !== 'aligned')
    throw new UserError(`--pool ${p}: an index holds one vector per item; use mean, cls, cls+mean or aligned (dino.txt)`);
  return { path, spec, pool: p, identity: modelIdentity(path, spec.name, pooledWidth(spec, p), p) };
}

/** The items of one file: a still, a video's windows (with window options), or one clip. */
export async function fileItems(
  input: ModelInput,
  path: string,
  windows: Partial<WindowOptions> | null,
  sources: VideoWindowSource[],
): Promise<CorpusItem[]> {
  if (!isVideo(path)) return [{ label: path, load: () => input.image(path), still: true }];
  if (!windows) return [{ label: path, load: () => input.video(path), still: false }];
  const { items, source } = await windowItems(input, path, windows);
  sources.push(source);
  return items;
}

export function modelInput(model: IndexedModel, flags: InputFlags): ModelInput {
  return new ModelInput(model.spec, inputOptions(flags, say));
}

/** Embeds `items` with the model, a batch at a time, handing each batch's records to `onBatch`. */
export async function embedItems(
  model: IndexedModel,
  flags: RuntimeFlags,
  items: readonly CorpusItem[],
  onBatch: (records: CorpusRecord[]) => void,
): Promise<void> {
  const session = await openSession(model.path, flags);
  try {
    for await (const records of embedCorpus(items, { session, pool: model.pool, batch: flags.batch })) onBatch(records);
  } finally {
    await session.dispose();
  }
}

/** An input path as the index stores it: absolute. */
export const indexPath = (p: string) => resolve(p);
