// Request items -> the tensors the model takes, through the same ModelInput path as the CLI. Videos
// given as bytes go through a private temp file for ffmpeg, removed afterwards.
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isJepaError } from '@jepa/errors';
import type { ModelSpec } from '@jepa/gguf';
import { type ItemTensor, type ModelInput, Semaphore, isVideoOnly } from '@jepa/input';
import { readNpy, readVideoFrames } from '@jepa/preprocess';
import { badField, itemFailure } from '../errors.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { ItemKind, ParsedItem, Sampling } from './parse-item.js';
import type { PathPolicy } from './path-policy.js';
import { type LoadedItem, tensorItem } from './tensor-item.js';
import { VideoWindows } from './video-windows.js';

const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.mpg', '.mpeg', '.ts', '.flv', '.wmv', '.3gp', '.ogv']);

/** Turns items into tensors; videos go through a private temp file for ffmpeg, removed afterwards. */
export class ItemLoader {
  readonly #ffmpeg = new Semaphore(2);

  constructor(
    readonly paths: PathPolicy,
    readonly tmpDir: string,
    readonly videoTimeoutSeconds: number,
  ) {}

  /** `input`: the recipe to load with (default the model's own). */
  async load(slot: ModelSlot, item: ParsedItem, input: ModelInput = slot.input): Promise<LoadedItem> {
    try {
      if (item.kind === 'path') return await this.#loadPath(slot.spec, input, item.field, item.path, item.as);
      return await this.#loadBytes(slot.spec, input, item.field, item.kind, item.bytes);
    } catch (err) {
      throw itemFailure(item.field, err);
    }
  }

  async #loadBytes(spec: ModelSpec, input: ModelInput, field: string, kind: ItemKind, bytes: Buffer): Promise<LoadedItem> {
    switch (kind) {
      case 'image':
        return this.#still(spec, await input.imageBytes(bytes));
      case 'frames':
        return { tensor: await input.framesNpy(bytes), still: false };
      case 'tensor':
        return tensorItem(field, spec, readNpy(bytes));
      case 'video': {
        const path = join(this.tmpDir, `${randomUUID()}.video`);
        await writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
        try {
          return await this.#video(spec, input, path, 'the video');
        } finally {
          await rm(path, { force: true });
        }
      }
    }
  }

  async #loadPath(spec: ModelSpec, input: ModelInput, field: string, path: string, as: ItemKind | null): Promise<LoadedItem> {
    const real = await this.paths.check(field, path);
    const ext = extname(real).toLowerCase();
    const kind = as ?? (ext === '.npy' ? null : VIDEO_EXTENSIONS.has(ext) ? 'video' : 'image');
    if (kind === 'image') return this.#still(spec, await input.image(real));
    if (kind === 'video') return this.#video(spec, input, real, path);
    const bytes = await readFile(real);
    if (kind === 'frames') return { tensor: await input.framesNpy(bytes), still: false };
    const npy = readNpy(bytes);
    if (kind === null && npy.dtype === 'uint8') return { tensor: await input.framesNpy(bytes), still: false };
    return tensorItem(field, spec, npy);
  }

  /**
   * A sampled video's windows, planned (ffprobe) before any frame is decoded. A base64 video goes to a
   * private temp file that the caller removes (VideoWindows.close) once its windows are taken.
   */
  async windows(input: ModelInput, item: ParsedItem & { sampling: Sampling }): Promise<VideoWindows> {
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
      const source = await this.#ffmpeg.run(() => input.videoWindows(path, item.sampling.options, this.videoTimeoutSeconds));
      return new VideoWindows(item, source, temp, (line) => (path === shownAs ? line : line.split(path).join(shownAs)));
    } catch (err) {
      if (temp !== null) await rm(temp, { force: true });
      if (err instanceof Error && path !== shownAs) err.message = err.message.split(path).join(shownAs);
      // the windows asked for do not fit the video (an empty range, ...): the sampling's fault
      if (isJepaError(err) && err.code === 'invalid_argument') throw badField(item.sampling.field, err.message, 'invalid_sampling');
      throw itemFailure(item.field, err);
    }
  }

  #still(spec: ModelSpec, tensor: ItemTensor): LoadedItem {
    return { tensor, still: !isVideoOnly(spec) && tensor.shape.length === 3 };
  }

  async #video(spec: ModelSpec, input: ModelInput, path: string, shownAs: string): Promise<LoadedItem> {
    const frames = await this.#ffmpeg.run(async () => {
      try {
        return await readVideoFrames(path, spec.enc.nFrames, { timeoutSeconds: this.videoTimeoutSeconds });
      } catch (err) {
        if (err instanceof Error && shownAs !== path) err.message = err.message.split(path).join(shownAs);
        throw err;
      }
    });
    return { tensor: await input.clip(frames), still: false };
  }
}
