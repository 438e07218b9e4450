// Turns files into the exact tensors a model takes, following its jepa.pre.* recipe.
import type { ModelSpec } from '@jepa/gguf';
import {
  preprocessClip, preprocessImage, readFramesNpy, readImageFile, readVideoFrames, recipeFromPreKeys, type PreprocessRecipe,
} from '@jepa/preprocess';

/** Families whose encoder only takes clips (V-JEPA 2.1 has an image tokenizer, the image families take stills). */
export function isVideoOnly(spec: ModelSpec): boolean {
  return (spec.family === 'vjepa' || spec.family === 'vjepa2' || spec.family === 'levjepa');
}

export interface ItemTensor {
  /** [C, H, W] or [C, T, H, W] */
  data: Float32Array;
  shape: number[];
}

export class ModelInput {
  readonly recipe: PreprocessRecipe;
  #stillNoticeShown = false;

  constructor(readonly spec: ModelSpec, private readonly notice: (message: string) => void) {
    this.recipe = recipeFromPreKeys(spec.pre);
  }

  async image(path: string): Promise<ItemTensor> {
    const t = preprocessImage(await readImageFile(path), this.recipe);
    if (!isVideoOnly(this.spec)) return { data: t.data, shape: [...t.shape] };
    const frames = this.spec.enc.nFrames;
    if (!this.#stillNoticeShown) {
      this.#stillNoticeShown = true;
      this.notice(`a still image given to the video model ${this.spec.family} is repeated to its ${frames} trained frames`);
    }
    const [c, h, w] = t.shape;
    const plane = h * w;
    const data = new Float32Array(c * frames * plane);
    for (let ch = 0; ch < c; ch++)
      for (let f = 0; f < frames; f++) data.set(t.data.subarray(ch * plane, (ch + 1) * plane), (ch * frames + f) * plane);
    return { data, shape: [c, frames, h, w] };
  }

  async video(path: string): Promise<ItemTensor> {
    const frames = await readVideoFrames(path, this.spec.enc.nFrames);
    const t = preprocessClip(frames, this.recipe);
    return { data: t.data, shape: [...t.shape] };
  }

  framesNpy(path: string): ItemTensor {
    const frames = readFramesNpy(path);
    if (frames.frames.length !== this.spec.enc.nFrames)
      this.notice(`${path}: ${frames.frames.length} frames, the model was trained on ${this.spec.enc.nFrames}`);
    const t = preprocessClip(frames, this.recipe);
    return { data: t.data, shape: [...t.shape] };
  }
}
