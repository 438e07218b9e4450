export {
  decodeImage,
  decodeImageStored,
  readImage,
  type StoredImage,
  MAX_SHARP_PIXELS,
  type SharpDecodeOptions,
  type ShrinkOnLoad,
} from './decode.js';
export { DCT_SHRINKS, dctScaledSize, dctShrink, type DctShrink } from './dct-shrink.js';
export { DEFAULT_DECODE_THREADS, decodeThreads, setDecodeThreads } from './sharp-config.js';
