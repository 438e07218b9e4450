import { createRequire } from 'node:module';
import type { Addon } from './binding.js';
import { NativeError } from './errors.js';

let loaded: Addon | undefined;

/** The native addon, loaded once: `JEPA_ADDON`, else the CUDA build if present, else the CPU build. */
export function addon(): Addon {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = (require('@jepa/addon') as { addonPath(): string }).addonPath();
  } catch (err) {
    throw new NativeError(err instanceof Error ? err.message : String(err), 'NOT_BUILT');
  }
  const mod = require(path) as Addon;
  mod.setErrorClass(NativeError);
  for (const cls of [mod.Backend, mod.Context, mod.Mapping, mod.Tensor, mod.Buffer, mod.Graph]) {
    const proto = (cls as { prototype: { dispose(): void; [Symbol.dispose]?: () => void } }).prototype;
    proto[Symbol.dispose] = proto.dispose;
  }
  loaded = mod;
  return mod;
}
