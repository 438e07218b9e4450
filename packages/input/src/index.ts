export { ModelInput, isVideoOnly, type DecoderKind, type ItemTensor, type ModelInputOptions } from './model-input.js';
export { prefetchInOrder, Semaphore, type Prefetched } from './pipeline/prefetch.js';
export { RecipeTensors } from './tensor/recipe-tensors.js';
export { VideoWindowSource } from './video/window-source.js';
export { planVideoWindows, windowClips, type FramePlanes, type WindowedClip, type WindowsPlan } from './video/video-windows.js';
export { recipeGeometry, type RecipeGeometry } from './tensor/recipe-geometry.js';

export {
  decodeImage,
  decodeImageStored,
  type StoredImage,
  readImage,
  setDecodeThreads,
  decodeThreads,
  DEFAULT_DECODE_THREADS,
  MAX_SHARP_PIXELS,
  type SharpDecodeOptions,
  type ShrinkOnLoad,
  dctShrink,
  dctScaledSize,
  type DctShrink,
} from './decode/index.js';
