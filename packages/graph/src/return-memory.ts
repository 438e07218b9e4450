// A model's native memory is held by the JavaScript wrappers of its tensors (each keeps its ggml
// context, and that context the buffers), which V8 collects when it pleases: it sees a few bytes per
// wrapper, not the megabytes behind them. After an unload a server wants that memory back at once.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { trimHeap } from '@jepa/native';

let gc: (() => void) | null | undefined;

function fullGc(): (() => void) | null {
  if (gc !== undefined) return gc;
  const own = (globalThis as { gc?: () => void }).gc;
  if (own) gc = own;
  else {
    try {
      // the flag exposes gc() to contexts made from now on; this process's own stays as it was
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/**
 * Collects the wrappers of disposed models (a full GC), lets their finalizers run, then returns the
 * C heap's free pages to the OS (malloc_trim). For after an unload, not for a hot path.
 */
export async function returnFreedMemory(): Promise<void> {
  fullGc()?.();
  await new Promise<void>((next) => setImmediate(next));
  trimHeap();
}
