// Turns files and bytes into the exact tensors a model takes, following its jepa.pre.* recipe.
import { readFile } from 'node:fs/promises';
import { isVideoOnlyFamily, type ModelSpec } from '@jepa/gguf';
import {
  MAX_DECODE_PIXELS,
  PreprocessError,
  decodeImage as decodeImageJs,
  preprocessClip,
  preprocessImage,
  readFramesNpy,
  readVideoFrames,
  recipeAtSize,
  recipeFromPreKeys,
  resizedSize,
  type FrameSet,
  type PreprocessRecipe,
  type RgbImage,
  type WindowOptions,
} from '@jepa/preprocess';
import { decodeImage as decodeImageSharp, decodeImageStored, type SharpDecodeOptions } from './decode/index.js';
import type { ItemTensor } from './item-tensor.js';
import { Semaphore } from './pipeline/prefetch.js';
import { RecipeTensors } from './tensor/recipe-tensors.js';
import { planVideoWindows } from './video/video-windows.js';
import { VideoWindowSource } from './video/window-source.js';

export type { ItemTensor } from './item-tensor.js';

/** Whether the model's encoder takes only clips (its family's traits: a video encoder without an image tokenizer). */
export function isVideoOnly(spec: ModelSpec): boolean {
  return isVideoOnlyFamily(spec.family);
}

/**
 * native: sharp (libvips) decode and the addon's resize, off the main thread;
 * js: jpeg-js / pngjs and the TypeScript resize, the portable reference path (JPEG and PNG only).
 */
export type DecoderKind = 'native' | 'js';

export interface ModelInputOptions {
  /** Apply EXIF orientation as Pillow's ImageOps.exif_transpose does (default true). */
  exifOrient?: boolean;
  decoder?: DecoderKind;
  /** Refuse images with more pixels than this, from the header (default Pillow's bomb bound). */
  maxPixels?: number;
  /**
   * Full-size decodes running at once (default 2). Each holds a whole decoded image (72 MB for a
   * 24 MP photo) until its recipe has run, so this bounds the memory of the heavy step.
   */
  decodeConcurrency?: number;
  /**
   * Another input size than the recipe's: every image and frame resized straight to height × width, no crop
   * (`recipeAtSize`); for encoders that run any patch grid (DINOv3, and ViTs whose tables resize).
   */
  size?: { height: number; width: number };
  /** Told once when a still image is repeated into a clip for a video-only family. */
  notice?: (message: string) => void;
  /**
   * Fast decode (default false): a JPEG file is shrunk to 1/2, 1/4 or 1/8 while it decodes (DCT
   * scaling, by Pillow's draft rule) where the recipe's resize still only downsamples from there.
   * The tensor is then close to Pillow's full decode, not bit-equal. Files only (`image(path)`):
   * bytes decode in full. Needs the native decoder.
   */
  fastDecode?: boolean;
}

export class ModelInput {
  readonly recipe: PreprocessRecipe;
  readonly decoder: DecoderKind;
  readonly fastDecode: boolean;
  readonly #tensors: RecipeTensors;
  readonly #exifOrient: boolean;
  readonly #maxPixels: number;
  readonly #notice: (message: string) => void;
  readonly #decodes: Semaphore;
  #stillNoticeShown = false;

  constructor(
    readonly spec: ModelSpec,
    options: ModelInputOptions = {},
  ) {
    const recipe = recipeFromPreKeys(spec.pre);
    this.recipe = options.size ? recipeAtSize(recipe, options.size.height, options.size.width) : recipe;
    this.#tensors = new RecipeTensors(this.recipe);
    this.decoder = options.decoder ?? 'native';
    this.fastDecode = options.fastDecode ?? false;
    if (this.fastDecode && this.decoder === 'js') {
      throw new PreprocessError('invalid_argument', 'fastDecode needs the native decoder: the js decoder has no DCT scaling');
    }
    this.#exifOrient = options.exifOrient ?? true;
    this.#maxPixels = options.maxPixels ?? MAX_DECODE_PIXELS;
    this.#notice = options.notice ?? (() => {});
    this.#decodes = new Semaphore(options.decodeConcurrency ?? 2);
  }

  /** Decodes image bytes to RGB with Pillow's convert('RGB') semantics. */
  async decode(bytes: Uint8Array): Promise<RgbImage> {
    const options = { maxPixels: this.#maxPixels, exifOrient: this.#exifOrient };
    return this.decoder === 'native' ? decodeImageSharp(bytes, options) : decodeImageJs(bytes, options);
  }

  async image(path: string): Promise<ItemTensor> {
    return this.#decodes.run(async () => {
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (err) {
        throw new PreprocessError('io_error', `cannot read image: ${(err as Error).message}`, { cause: err });
      }
      return this.#still(bytes, path);
    });
  }

  async imageBytes(bytes: Uint8Array): Promise<ItemTensor> {
    return this.#decodes.run(async () => this.#still(bytes));
  }

  async #still(bytes: Uint8Array, path?: string): Promise<ItemTensor> {
    if (this.decoder === 'js') return this.still(await this.decode(bytes));
    const options: SharpDecodeOptions = { maxPixels: this.#maxPixels, exifOrient: this.#exifOrient };
    if (this.fastDecode && path !== undefined) options.shrinkOnLoad = { path, atLeast: (w, h) => resizedSize(w, h, this.recipe) };
    const { image, orientation, full } = await decodeImageStored(bytes, options);
    return this.still(image, orientation, full);
  }

  /**
   * A decoded still as the model takes it; a video-only family gets it repeated to its trained
   * frames. `orientation` (EXIF 1..8) says how the pixels stand; the native recipe turns them upright.
   * `full` is the stored size a fast decode shrank img from: the recipe's geometry is that size's.
   */
  async still(img: RgbImage, orientation = 1, full: { width: number; height: number } = img): Promise<ItemTensor> {
    if (this.decoder === 'js' && orientation !== 1)
      throw new PreprocessError('invalid_argument', 'the js decoder takes upright pixels (orientation 1)');
    if (!isVideoOnly(this.spec)) {
      const t = this.decoder === 'native' ? await this.#tensors.image(img, orientation, full) : preprocessImage(img, this.recipe);
      return { data: t.data, shape: [...t.shape] };
    }
    const frames = this.spec.enc.nFrames;
    if (!this.#stillNoticeShown) {
      this.#stillNoticeShown = true;
      this.#notice(`a still image given to the video model ${this.spec.family} is repeated to its ${frames} trained frames`);
    }
    return this.clip({ frames: new Array<Uint8Array>(frames).fill(img.data), width: img.width, height: img.height }, orientation, full);
  }

  /** Samples the model's frame count with ffmpeg, then runs the recipe on every frame. */
  async video(path: string): Promise<ItemTensor> {
    return this.clip(await readVideoFrames(path, this.spec.enc.nFrames));
  }

  /**
   * A long video as windows (spec windows-v1): planned from its timeline now, decoded once as the
   * windows are taken. `frames` defaults to the model's trained clip length.
   */
  async videoWindows(path: string, options: Partial<WindowOptions>, timeoutSeconds?: number): Promise<VideoWindowSource> {
    const plan = await planVideoWindows(path, { ...options, frames: options.frames ?? this.spec.enc.nFrames }, timeoutSeconds);
    const planes = async (rgb: Uint8Array, width: number, height: number, reuse?: Float32Array) => {
      const img = { width, height, data: rgb };
      if (this.decoder === 'js') {
        const t = preprocessImage(img, this.recipe);
        return { data: t.data, width: t.shape[2]!, height: t.shape[1]! };
      }
      const size = this.#tensors.outputSize(width, height);
      const n = 3 * size.width * size.height;
      const data = reuse?.length === n ? reuse : new Float32Array(n);
      await this.#tensors.writePlanes(img, data, size.width * size.height, 0);
      return { data, ...size };
    };
    return new VideoWindowSource(path, plan, planes, timeoutSeconds);
  }

  async framesNpy(pathOrBytes: string | Uint8Array): Promise<ItemTensor> {
    const frames = readFramesNpy(pathOrBytes);
    if (frames.frames.length !== this.spec.enc.nFrames) {
      const what = typeof pathOrBytes === 'string' ? `${pathOrBytes}: ` : '';
      this.#notice(`${what}${frames.frames.length} frames, the model was trained on ${this.spec.enc.nFrames}`);
    }
    return this.clip(frames);
  }

  /**
   * Frames (HWC rgb24, one size, standing as `orientation` says) to the normalised [3, T, H, W]
   * tensor; `full` as in still().
   */
  async clip(set: FrameSet, orientation = 1, full: { width: number; height: number } = set): Promise<ItemTensor> {
    if (this.decoder === 'js') {
      const t = preprocessClip(set, this.recipe);
      return { data: t.data, shape: [...t.shape] };
    }
    const count = set.frames.length;
    if (count === 0) throw new PreprocessError('invalid_argument', 'the clip has no frames');
    const { width, height } = this.#tensors.outputSize(full.width, full.height, orientation);
    const plane = width * height;
    const data = new Float32Array(3 * count * plane);
    let done: Uint8Array | undefined;
    for (let t = 0; t < count; t++) {
      const frame = set.frames[t]!;
      if (frame === done) {
        // A repeated still: the same pixels give the same planes.
        for (let c = 0; c < 3; c++)
          data.copyWithin(c * count * plane + t * plane, c * count * plane + (t - 1) * plane, c * count * plane + t * plane);
        continue;
      }
      await this.#tensors.writePlanes({ width: set.width, height: set.height, data: frame }, data, count * plane, t * plane, orientation, full);
      done = frame;
    }
    return { data, shape: [3, count, height, width] };
  }
}
