import type { PyValue } from './pickle/py-values.js';
import type { TensorRef } from './tensor-ref.js';

export type CheckpointFormat = 'safetensors' | 'torch-zip';

/** An opened checkpoint: a table of lazy tensors over open files. Call `close()` when done. */
export interface Checkpoint {
  readonly format: CheckpointFormat;
  readonly path: string;
  /** Every tensor, by its full name (dotted path for nested torch objects). */
  readonly tensors: Map<string, TensorRef>;
  /** safetensors `__metadata__` (merged over shards), or the torch archive's name and version. */
  readonly metadata: Record<string, string>;
  /** The unpickled object for torch files (tensor leaves are TensorRefs); for safetensors, `tensors`. */
  readonly root: PyValue;
  close(): Promise<void>;
}
