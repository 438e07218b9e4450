export { addon } from './addon.js';
export type {
  Addon,
  Backend,
  Buffer,
  BuildInfo,
  Context,
  DeviceInfo,
  Dims,
  GgufInfo,
  Graph,
  Mapping,
  Tensor,
  TypeTraits,
} from './binding.js';
export { NativeError } from './errors.js';
export { devices, openBackend, resolveDevice, type BackendOptions } from './device.js';
export { dequantizeRow, quantizeRows, rowBytes, typeByName, typeTraits } from './types.js';

import { addon } from './addon.js';
import type { BuildInfo, Context, GgufInfo, Mapping } from './binding.js';

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

/** ggml's own GGUF reader (gguf.cpp), for interoperability checks. */
export function ggufInfo(path: string): GgufInfo {
  return addon().ggufInfo(path);
}
