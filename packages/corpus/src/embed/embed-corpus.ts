// Embeds a corpus in input order, a batch at a time, while the next inputs decode. Yields each batch's
// records (embeddings and failures, in input order) as soon as it is encoded, so nothing accumulates.
import { type Pool, headPooled, projectStates, poolBatch } from '@jepa/engine';
import type { EncoderContext, HeadContext } from '@jepa/graph';
import { prefetchInOrder, type ItemTensor } from '@jepa/input';
import type { WorldModel } from '@jepa/worldmodel';
import type { CorpusItem, CorpusRecord } from './corpus-item.js';

export type { Pool };

export interface EmbedCorpusOptions {
  ctx: EncoderContext;
  pool: Pool;
  /** Stills per encoder call (default 32). */
  batch?: number;
  /** Windows of a video per encoder call (default 4, at most batch). */
  clipBatch?: number;
  /** Needed for pool 'lewm'. */
  world?: WorldModel | null;
  /** Needed for pool 'pooler'. */
  head?: HeadContext | null;
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
  const buffer = new BatchBuffer();
  let shape = '';
  let tensors = 0;
  const flush = async (): Promise<CorpusRecord[]> => {
    const group = pending;
    pending = [];
    tensors = 0;
    return encodeGroup(group, options, buffer);
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

/** A run's batches encode one after another and the encoder copies its input: one buffer serves every batch of a size. */
class BatchBuffer {
  #data: Float32Array | undefined;
  of(length: number): Float32Array {
    if (this.#data?.length !== length) this.#data = new Float32Array(length);
    return this.#data;
  }
}

function needed<T>(part: T | null | undefined, what: string): T {
  if (!part) throw new Error(`embedCorpus: ${what}`);
  return part;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function encodeGroup(group: Pending[], { ctx, pool, world, head }: EmbedCorpusOptions, buffer: BatchBuffer): Promise<CorpusRecord[]> {
  const encoded = group.filter((g): g is { item: CorpusItem; tensor: ItemTensor } => !('error' in g));
  const results = new Map<CorpusItem, { values: Float32Array; shape: number[] }>();
  if (encoded.length > 0) {
    const itemShape = encoded[0]!.tensor.shape;
    const size = encoded[0]!.tensor.data.length;
    // one item's tensor as it is; a batch in a buffer kept for the next batch of the same size
    const data = encoded.length === 1 ? encoded[0]!.tensor.data : buffer.of(encoded.length * size);
    if (encoded.length > 1) for (const [i, g] of encoded.entries()) data.set(g.tensor.data, i * size);
    const input = { data, shape: [encoded.length, ...itemShape] };
    const out = await ctx.encode(input);
    // the engine's pooling, as the server and MCP pool: LeWM projects the batch's CLS rows together
    const vectors =
      pool === 'lewm'
        ? await projectStates(needed(world, 'pool lewm needs a world model'), [out])
        : pool === 'pooler'
          ? await headPooled(needed(head, 'pool pooler needs a head context'), [out])
          : poolBatch(out, pool);
    for (const [i, g] of encoded.entries()) results.set(g.item, vectors[i]!);
  }
  return group.map((g) => ('error' in g ? { item: g.item, error: g.error } : { item: g.item, ...results.get(g.item)! }));
}
