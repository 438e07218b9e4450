export {};

export {
  decodeImage,
  readImage,
  setDecodeThreads,
  decodeThreads,
  DEFAULT_DECODE_THREADS,
  MAX_SHARP_PIXELS,
  type SharpDecodeOptions,
} from './decode/index.js';
