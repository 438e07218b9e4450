export { decodeImage, decodeImageStored, readImage, type StoredImage, MAX_SHARP_PIXELS, type SharpDecodeOptions } from './decode.js';
export { DEFAULT_DECODE_THREADS, decodeThreads, setDecodeThreads } from './sharp-config.js';
