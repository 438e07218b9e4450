import { addon } from './addon.js';
import type { Backend, DeviceInfo } from './binding.js';
import { NativeError } from './errors.js';
import { defaultThreads } from './host-cpus.js';

export function devices(): DeviceInfo[] {
  return addon().devices();
}

/**
 * Resolves a device request (`cpu`, `cuda`, `cuda:N`, `gpu:N` or a bare GPU index `N`) to a ggml
 * device name. Undefined falls back to `JEPA_DEVICE`, then the CPU.
 */
export function resolveDevice(request?: string | number): string {
  const req = String(request ?? process.env.JEPA_DEVICE ?? 'cpu')
    .trim()
    .toLowerCase();
  if (req === '' || req === 'cpu') return 'CPU';
  const m = /^(?:(?:cuda|gpu):?)?(\d+)?$/.exec(req);
  if (!m) throw new NativeError('NO_DEVICE', `unknown device '${req}' (use cpu, cuda, cuda:N or N)`);
  const index = Number(m[1] ?? 0);
  const gpus = devices().filter((d) => d.type === 'gpu' || d.type === 'igpu');
  const gpu = gpus[index];
  if (!gpu) {
    const have = gpus.length ? gpus.map((d) => d.name).join(', ') : 'none in this build';
    throw new NativeError('NO_DEVICE', `no GPU ${index} (GPUs: ${have})`);
  }
  return gpu.name;
}

export interface BackendOptions {
  /** See `resolveDevice`. */
  device?: string | number;
  /** CPU compute threads; defaults to JEPA_THREADS, else the CPUs this process may use (affinity, capped by a CFS quota). */
  threads?: number;
}

export function openBackend(options: BackendOptions = {}): Backend {
  const name = resolveDevice(options.device);
  return new (addon().Backend)(name, options.threads ?? defaultThreads());
}
