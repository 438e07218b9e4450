import type { GlobalWhitelist, PyValue } from '../pickle/py-values.js';
import { runPickle } from '../pickle/unpickler.js';
import { TORCH_WHITELIST } from './torch-globals.js';

export interface UnpickleOptions {
  /** Defaults to the torch checkpoint whitelist (tensors, storages, plain containers). */
  globals?: GlobalWhitelist;
  persistentLoad?: (pid: PyValue) => PyValue;
}

/** Unpickles plain data and torch tensors; any global outside the whitelist is refused by name. */
export function unpickle(bytes: Uint8Array, options: UnpickleOptions = {}): PyValue {
  return runPickle(bytes, { globals: options.globals ?? TORCH_WHITELIST, persistentLoad: options.persistentLoad });
}
