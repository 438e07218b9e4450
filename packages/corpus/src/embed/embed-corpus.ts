// Embeds a corpus in input order, a batch at a time, while the next inputs decode. Yields each batch's
// records (embeddings and failures, in input order) as soon as it is encoded, so nothing accumulates.
import type { EncoderContext } from '@jepa/graph';
import { prefetchInOrder, type ItemTensor } from '@jepa/input';
import type { ModelSession, Pool } from '@jepa/session';
import type { CorpusItem, CorpusRecord } from './corpus-item.js';

export type { Pool };

export interface EmbedCorpusOptions {
  session: ModelSession;
  pool: Pool;
  /** Scale each vector (each token's, for pool none) to unit L2 length. */
  normalize?: boolean;
  /** The encoder to run (default the session's own; a worker's second job at once brings another). */
  encoder?: EncoderContext;
  /** Stills per encoder call (default 32). */
  batch?: number;
  /** Windows of a video per encoder call (default 4, at most batch). */
  clipBatch?: number;
}

type Pending = { item: CorpusItem; tensor: ItemTensor } | { item: CorpusItem; error: string };

export async function* embedCorpus(items: readonly CorpusItem[], options: EmbedCorpusOptions): AsyncGenerator<CorpusRecord[]> {
  const batchSize = options.batch ?? 32;
  // Stills decode a batch and a little ahead while the current batch encodes. With clips among the
  // inputs everything runs 2 ahead (a clip tensor is megabytes): a clip decodes (ffmpeg) while the
  // one before it encodes.
  // Windows of a video batch (clipBatch at a time) and decode as far ahead.
  const clipBatch = Math.min(batchSize, options.clipBatch ?? 4);
  const depth = items.some((i) => !i.still && !i.batchable) ? 2 : items.some((i) => i.batchable) ? clipBatch + 2 : batchSize + 4;
  let pending: Pending[] = [];
  let shape = '';
  let tensors = 0;
  const flush = async (): Promise<CorpusRecord[]> => {
    const group = pending;
    pending = [];
    tensors = 0;
    return encodeGroup(group, options);
  };
  for await (const next of prefetchInOrder(items, (item) => item.load(), depth)) {
    if (!next.ok) {
      // A failure waits in its place, so the records stay in input order without splitting the batch.
      pending.push({ item: next.item, error: describe(next.error) });
      continue;
    }
    const tensor = next.value;
    if (tensor === null) continue;
    const itemShape = tensor.shape.join();
    const alone = !next.item.still && !next.item.batchable;
    if (tensors > 0 && (itemShape !== shape || alone)) yield await flush();
    pending.push({ item: next.item, tensor });
    shape = itemShape;
    tensors++;
    if (alone || tensors >= (next.item.still ? batchSize : clipBatch)) yield await flush();
  }
  if (pending.length > 0) yield await flush();
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function encodeGroup(group: Pending[], { session, pool, normalize, encoder }: EmbedCorpusOptions): Promise<CorpusRecord[]> {
  const encoded = group.filter((g): g is { item: CorpusItem; tensor: ItemTensor } => !('error' in g));
  const vectors =
    encoded.length > 0
      ? await session.embedBatch(
          encoded.map((g) => g.tensor),
          { pool, normalize, ...(encoder ? { encoder } : {}) },
        )
      : [];
  const results = new Map(encoded.map((g, i) => [g.item, vectors[i]!]));
  return group.map((g) => ('error' in g ? { item: g.item, error: g.error } : { item: g.item, ...results.get(g.item)! }));
}
