import type { ItemTensor } from '@jepa/input';

/** One input of a corpus: what it is called in the output, and how to load its tensor. */
export interface CorpusItem {
  label: string;
  /** The file whose size and mtime identify this item for --resume (the label's file by default). */
  source?: string;
  /** A still image (batched with others of its shape) rather than a clip (encoded alone). */
  still: boolean;
  load: () => Promise<ItemTensor>;
}

/** An item's result: its embedding ([D] pooled or [N, D] tokens), or why it failed. */
export type CorpusRecord = { item: CorpusItem; values: Float32Array; shape: number[] } | { item: CorpusItem; error: string };

export function isFailure(record: CorpusRecord): record is { item: CorpusItem; error: string } {
  return 'error' in record;
}
