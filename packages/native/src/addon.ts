import { createRequire } from 'node:module';
import type { Addon } from './binding.js';
import { NativeError, nativeErrorFromAddon } from './errors.js';

let loaded: Addon | undefined;

function loadFirst(require: NodeRequire, paths: string[]): Addon {
  const failures: string[] = [];
  for (const path of paths) {
    try {
      const mod = require(path) as Addon;
      if (failures.length > 0) process.stderr.write(`jepa: using ${path} (${failures.join('; ')})\n`);
      return mod;
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      // a refused JEPA_CPU / JEPA_CPU_VARIANT is the user's setting, which another binary would ignore
      if (/^jepa native addon: JEPA_CPU/.test(message)) throw new NativeError('BAD_OPTION', message);
      failures.push(`${path} did not load: ${message}`);
    }
  }
  throw new NativeError('NOT_BUILT', failures.join('; '));
}

/** The native addon, loaded once: `JEPA_ADDON`, else the CUDA build if it loads here, else the CPU build. */
export function addon(): Addon {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  let paths: string[];
  try {
    paths = (require('@jepa/addon') as { addonPaths(): string[] }).addonPaths();
  } catch (err) {
    throw new NativeError('NOT_BUILT', err instanceof Error ? err.message : String(err), { cause: err });
  }
  const mod = loadFirst(require, paths);
  mod.setErrorClass(nativeErrorFromAddon);
  for (const cls of [mod.Backend, mod.Context, mod.Mapping, mod.Tensor, mod.Buffer, mod.Graph]) {
    const proto = (cls as { prototype: { dispose(): void; [Symbol.dispose]?: () => void } }).prototype;
    proto[Symbol.dispose] = proto.dispose;
  }
  loaded = mod;
  return mod;
}
