export { addon } from './addon.js';
export type {
  Addon,
  Backend,
  Buffer,
  BuildInfo,
  AllocateOptions,
  ComputeOptions,
  Context,
  DeviceInfo,
  Dims,
  GeluErf,
  GgufInfo,
  Graph,
  Mapping,
  NonFiniteQuery,
  NonFiniteResult,
  PanelEpilogue,
  ResampleCrop,
  ResampleJob,
  Tensor,
  TypeTraits,
} from './binding.js';
export { NativeError, type NativeErrorCode } from './errors.js';
export { devices, openBackend, resolveDevice, type BackendOptions } from './device.js';
export { defaultThreads, hostCpus, parseCpuList, type HostCpus, type HostCpusOptions } from './host-cpus.js';
export { dequantizeRow, quantizeRows, rowBytes, typeByName, typeTraits } from './types.js';
export { resampleKernels, resampleNormalize, resampleNormalizeSync, resampleU8, resampleU8Sync } from './resample.js';

import { addon } from './addon.js';
import type { BuildInfo, Context, GgufInfo, Mapping, NonFiniteQuery, NonFiniteResult, Tensor } from './binding.js';

/** A ggml context holding up to `maxTensors` tensor descriptions (no data until allocated). */
export function createContext(maxTensors: number): Context {
  return new (addon().Context)(maxTensors);
}

/** Maps a file into memory (copy-on-write); weights are bound from it without copying. */
export function mapFile(path: string): Mapping {
  return new (addon().Mapping)(path);
}

export function buildInfo(): BuildInfo {
  return addon().buildInfo();
}

/**
 * The CPU panel form of an f32 / f16 / q8_0 / q4_0 / q4_K matrix, or a q8_row one (type I8, with its
 * F32 row scales), for Context.panelMulMat: the bytes it needs (rows % 16 == 0, row length a whole
 * number of blocks), and the repacking from a tensor in host memory into an I8 tensor of that size.
 */
export function panelBytes(type: number, rows: number, k: number): number {
  return addon().panelBytes(type, rows, k);
}

export function panelPack(src: Tensor, dst: Tensor, scales?: Tensor): void {
  addon().panelPack(src, dst, scales);
}

/** panelPack on libuv's thread pool: the event loop stays free while a large matrix is packed. */
export function panelPackAsync(src: Tensor, dst: Tensor, scales?: Tensor): Promise<void> {
  return addon().panelPackAsync(src, dst, scales);
}

/**
 * Returns the free pages of the C heap to the OS (glibc's malloc_trim(0)); true when some were.
 * Freed model memory that glibc keeps for reuse otherwise stays in the process's RSS.
 */
export function trimHeap(): boolean {
  return addon().trimHeap();
}

/** ggml's own GGUF reader (gguf.cpp), for interoperability checks. */
export function ggufInfo(path: string): GgufInfo {
  return addon().ggufInfo(path);
}

/**
 * The first NaN or Inf in each entry's bytes of a mapped file, read in place on `threads` threads off
 * the main thread: every value of f32 / f64 / f16 / bf16, the block scales of quantized types (q4_0 ..
 * q8_0, the K-quants, most i-quants). One result per entry, in order.
 */
export function findNonFinite(mapping: Mapping, entries: NonFiniteQuery[], threads = 1): Promise<NonFiniteResult[]> {
  return addon().findNonFinite(mapping, entries, threads);
}
