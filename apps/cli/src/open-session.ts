// The one way a command loads its model: the runtime and input flags into a session (@jepa/session),
// which owns the model, its input recipe, its contexts and pooling. A failure names the -m file.
import { type EncoderContextOptions, type RuntimeOptions, runtimeFromEnv } from '@jepa/graph';
import { ModelSession, type SessionOptions } from '@jepa/session';
import { say } from './display-text.js';
import { modelPath } from './hub-model.js';
import { type InputFlags, inputOptions } from './input-options.js';
import { aboutFileAsync, checkInputFile } from './user-error.js';

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

/** The contexts' options from the flags: flash attention, the kv cache's type, batch and deadline. */
export function contextOptions(flags: RuntimeFlags): EncoderContextOptions {
  const o: EncoderContextOptions = {};
  if (flags.flash === false) o.noFlash = true;
  if (flags.kvF16) o.kv = 'f16';
  if (flags.kvF32) o.kv = 'f32';
  if (flags.batch) o.maxBatch = flags.batch;
  if (flags.timeout !== undefined) o.timeoutMs = flags.timeout * 1000;
  return o;
}

let runtime: RuntimeOptions | undefined;

/** The JEPA_* switches, read from the environment once per process. */
export function runtimeOptions(): RuntimeOptions {
  runtime ??= runtimeFromEnv();
  return runtime;
}

/** `-m FILE` (or `-m hf:ORG/NAME`, pulled and converted first) as a session; `more` adds to the flags' options (an encoder's layers or output, the head's top k). */
export async function openSession(
  path: string,
  flags: RuntimeFlags & InputFlags,
  more: Pick<SessionOptions, 'encoder' | 'head' | 'predictor' | 'world' | 'actionConditioned'> & { notice?: (message: string) => void } = {},
): Promise<ModelSession> {
  const local = await modelPath(path);
  checkInputFile(local, '-m');
  const device = deviceFlag(flags.gpu);
  const threads = flags.threads ? { threads: flags.threads } : {};
  const noFlash = flags.flash === false ? { noFlash: true } : {};
  const timeoutMs = flags.timeout !== undefined ? { timeoutMs: flags.timeout * 1000 } : {};
  const kv = flags.kvF16 ? { kv: 'f16' as const } : flags.kvF32 ? { kv: 'f32' as const } : {};
  const options: SessionOptions = {
    ...(device ? { device } : {}),
    ...threads,
    ...(flags.allowNonfinite ? { allowNonFinite: true } : {}),
    runtime: runtimeOptions(),
    notice: say,
    input: inputOptions(flags, more.notice ?? say),
    encoder: { ...contextOptions(flags), ...more.encoder },
    head: { ...threads, ...noFlash, ...kv, ...timeoutMs, ...more.head },
    predictor: { ...threads, ...noFlash, ...timeoutMs, ...more.predictor },
    ...(more.world ? { world: more.world } : {}),
    ...(more.actionConditioned ? { actionConditioned: more.actionConditioned } : {}),
  };
  return aboutFileAsync(`-m ${path}`, local, () => ModelSession.load(local, options));
}
