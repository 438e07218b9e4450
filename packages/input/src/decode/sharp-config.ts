import { PreprocessError } from '@jepa/preprocess';
import sharp from 'sharp';

// libvips's operation cache would keep recently decoded images resident; every decode here is of a
// different file, so nothing is ever reused from it.
sharp.cache(false);

/**
 * libvips worker threads per decode (sharp's own default on glibc is 1). On this 2-core machine one
 * 4000x3000 JPEG took 74 ms with 2 threads against 87 ms with 1 while another process held a
 * core, and 99 against 160 ms with two such processes (scripts/bench-decode.mjs).
 */
export const DEFAULT_DECODE_THREADS = 2;

sharp.concurrency(DEFAULT_DECODE_THREADS);

/** Sets libvips's threads per image operation (process-wide, shared with every other sharp user). */
export function setDecodeThreads(threads: number): void {
  if (!Number.isInteger(threads) || threads < 1) {
    throw new PreprocessError('invalid_argument', `decode threads must be a positive integer, got ${threads}`);
  }
  sharp.concurrency(threads);
}

export function decodeThreads(): number {
  return sharp.concurrency();
}

export { sharp };
