import { PreprocessError } from '../errors.js';
import { readNpy } from '../npy.js';
import type { FrameSet } from '../preprocess.js';

/** Reads a THWC uint8 .npy (as scripts/video_frames.py writes) into per-frame HWC rgb24 buffers. */
export function readFramesNpy(pathOrBytes: string | Uint8Array): FrameSet {
  const array = readNpy(pathOrBytes);
  const { shape } = array;
  if (array.dtype !== 'uint8' || shape.length !== 4 || shape[3] !== 3 || shape.slice(0, 3).some((d) => d < 1)) {
    throw new PreprocessError('shape_mismatch', `frames .npy must be uint8 [T, H, W, 3] with T, H, W >= 1, got ${array.dtype} [${shape.join(', ')}]`);
  }
  const [frameCount, height, width] = shape;
  const frameBytes = height * width * 3;
  const data = array.data as Uint8Array;
  const frames: Uint8Array[] = [];
  for (let t = 0; t < frameCount; t++) frames.push(data.subarray(t * frameBytes, (t + 1) * frameBytes));
  return { frames, width, height };
}
