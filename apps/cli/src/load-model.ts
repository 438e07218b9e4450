import { Model } from '@jepa/graph';
import type { EncoderContextOptions } from '@jepa/graph';

export interface RuntimeFlags {
  threads?: number;
  gpu?: string | boolean;
  flash?: boolean;
  kvF16?: boolean;
  kvF32?: boolean;
  batch?: number;
  /** --timeout, in seconds. */
  timeout?: number;
  allowNonfinite?: boolean;
}

/** `--gpu` alone picks GPU 0; `--gpu N` picks GPU N; neither leaves JEPA_DEVICE (default CPU) in charge. */
export function deviceFlag(gpu: string | boolean | undefined): string | undefined {
  if (gpu === undefined || gpu === false) return undefined;
  return gpu === true ? 'cuda:0' : `cuda:${gpu}`;
}

export async function loadModel(path: string, flags: RuntimeFlags): Promise<Model> {
  const device = deviceFlag(flags.gpu);
  return Model.load(path, {
    ...(device ? { device } : {}),
    ...(flags.threads ? { threads: flags.threads } : {}),
    ...(flags.allowNonfinite ? { allowNonFinite: true } : {}),
  });
}

export function contextOptions(flags: RuntimeFlags): EncoderContextOptions {
  const o: EncoderContextOptions = {};
  if (flags.flash === false) o.noFlash = true;
  if (flags.kvF16) o.kv = 'f16';
  if (flags.kvF32) o.kv = 'f32';
  if (flags.batch) o.maxBatch = flags.batch;
  if (flags.timeout !== undefined) o.timeoutMs = flags.timeout * 1000;
  return o;
}
