import type { ItemTensor } from '@jepa/input';

/** One input of a corpus: what it is called in the output, and how to load its tensor. */
export interface CorpusItem {
  label: string;
  /** The file whose size and mtime identify this item for --resume (the label's file by default). */
  source?: string;
  /** A still image (batched with others of its shape) rather than a clip (encoded alone). */
  still: boolean;
  /** A clip that batches with others of its shape all the same (the windows of one video). */
  batchable?: boolean;
  /** Fields the output's record and index line carry beside the input (a window's place in its video). */
  meta?: Readonly<Record<string, unknown>>;
  /** The item's tensor, or null when it turns out not to exist (a window past a truncated video's end). */
  load: () => Promise<ItemTensor | null>;
}

/** An item's result: its embedding ([D] pooled or [N, D] tokens), or why it failed. */
export type CorpusRecord = { item: CorpusItem; values: Float32Array; shape: number[] } | { item: CorpusItem; error: string };

export function isFailure(record: CorpusRecord): record is { item: CorpusItem; error: string } {
  return 'error' in record;
}
