import { PreprocessError } from '../errors.js';

function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff !== 0.5) return diff < 0.5 ? floor : floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * `np.round(np.linspace(0, total - 1, n)).astype(int)`: numpy's linspace (i · step, last sample
 * pinned to the stop) and its ties-to-even rounding. A clip shorter than n repeats frames.
 */
export function sampleIndices(total: number, n: number): number[] {
  if (!Number.isSafeInteger(total) || total < 1) {
    throw new PreprocessError('invalid_argument', `sampleIndices: total frame count must be >= 1, got ${total}`);
  }
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new PreprocessError('invalid_argument', `sampleIndices: sample count must be >= 1, got ${n}`);
  }
  const stop = total - 1;
  if (n === 1) return [0];
  const step = stop / (n - 1);
  const indices: number[] = [];
  for (let i = 0; i < n; i++) {
    const value = i === n - 1 ? stop : step === 0 ? 0 : i * step;
    indices.push(roundHalfEven(value));
  }
  return indices;
}
