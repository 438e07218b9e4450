import { addon } from './addon.js';
import type { ResampleJob } from './binding.js';

/**
 * Native resize + crop, byte-identical to @jepa/preprocess's resizeU8 followed by slicing the crop
 * out: cropH x cropW x 3 RGB bytes, row-major. Computed on the libuv pool, one thread per call;
 * invalid arguments reject with a NativeError naming the field. JEPA_RESAMPLE_ISA (scalar, avx2,
 * avx512), read on every call, forces a kernel; all give the same bytes.
 */
export async function resampleU8(job: ResampleJob): Promise<Uint8Array> {
  return addon().resampleU8(job);
}

/** resampleU8 on the calling thread. */
export function resampleU8Sync(job: ResampleJob): Uint8Array {
  return addon().resampleU8Sync(job);
}

/**
 * resampleU8, then each byte through its channel's table: channel c of crop pixel (y, x) becomes
 * out[c * channelStride + offset + y * cropW + x] = tables[c * 256 + value]. `tables` is 3 x 256
 * float32 values, channel-major, copied at the call; `out` must not be touched until it settles.
 */
export async function resampleNormalize(
  job: ResampleJob,
  tables: Float32Array,
  out: Float32Array,
  channelStride: number,
  offset: number,
): Promise<void> {
  return addon().resampleNormalize(job, tables, out, channelStride, offset);
}

/** resampleNormalize on the calling thread. */
export function resampleNormalizeSync(job: ResampleJob, tables: Float32Array, out: Float32Array, channelStride: number, offset: number): void {
  addon().resampleNormalizeSync(job, tables, out, channelStride, offset);
}

/** The resampler's kernels this CPU runs, fastest first: the values JEPA_RESAMPLE_ISA accepts here. */
export function resampleKernels(): string[] {
  return addon().resampleKernels();
}
