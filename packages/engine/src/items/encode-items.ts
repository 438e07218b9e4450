// Items through their model's batcher, in order: items whole, and each sampled video's windows from
// its one decode. The first failure drops the request's other queued items and is what it answers with.
import type { EncodeOutput } from '@jepa/graph';
import { type ModelInput, Semaphore } from '@jepa/input';
import { itemFailure } from '../errors.js';
import type { Batcher } from '../queue/batcher.js';
import { Dropped } from '../queue/dropped.js';
import type { EngineMetrics } from '../queue/engine-metrics.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { ItemLoader } from './item-loader.js';
import { type ParsedItem, refuseSampling } from './parse-item.js';
import type { PlannedItems } from './planned-items.js';
import type { LoadedItem } from './tensor-item.js';

export interface EncodedItem {
  /** The item's encoder output, a batch of one. */
  out: EncodeOutput;
  /** The item's tensor shape, [C, H, W] or [C, T, H, W]. */
  shape: number[];
  /** The item's tensor values (the network input). */
  data: Float32Array;
}

/** A window's place in its video, as the responses give it. */
export interface WindowPlace {
  window: number;
  start_s: number;
  end_s: number;
  frames: number[];
}

export interface PlannedEncoded extends EncodedItem {
  /** The item's place in the request. */
  index: number;
  /** Where the window lies, for a window of a sampled video. */
  place: WindowPlace | null;
}

/** Windows of one video loaded ahead of the encoder at most (their clips wait in memory). */
function lookahead(slot: ModelSlot): number {
  return Math.min(32, Math.max(2, 2 * slot.options.maxBatch));
}

/**
 * Every unit of a planned request through its model's batcher, in order: items whole, and each
 * sampled video's windows from its one decode (a few ahead of the encoder; windows of one video share
 * a shape, so they may share graphs). A window the truncated video never completed is left out, and
 * `warnings` says so.
 */
export async function encodePlanned(
  ctx: { loader: ItemLoader; metrics: EngineMetrics },
  slot: ModelSlot,
  planned: PlannedItems,
  scope: RequestScope,
): Promise<{ encoded: PlannedEncoded[]; warnings: string[] }> {
  const gates = new Map(planned.videos.map((v) => [v, new Semaphore(lookahead(slot))]));
  const all = await Promise.all(
    planned.units.map(async (unit): Promise<PlannedEncoded | null> => {
      const w = unit.window;
      if (w === null) {
        const e = await encodeUnit(ctx, slot, unit.item.field, scope, () => ctx.loader.load(slot, unit.item, planned.input));
        return e && { ...e, index: unit.index, place: null };
      }
      const e = await gates.get(w.video)!.run(() =>
        encodeUnit(ctx, slot, unit.item.field, scope, async () => {
          const tensor = await w.video.take(w.k);
          return tensor && { tensor, still: true };
        }),
      );
      return e && { ...e, index: unit.index, place: { window: w.at.window, start_s: w.at.startS, end_s: w.at.endS, frames: [...w.at.frames] } };
    }),
  );
  return { encoded: all.filter((e): e is PlannedEncoded => e !== null), warnings: planned.warnings() };
}

/**
 * Every item of a request through its model's batcher, in order. The first failure drops the
 * request's other queued items and is what the request answers with. `batcher`: another of the
 * model's encoders (the predictor's hierarchy-mode one) instead of the shared one.
 */
export async function encodeItems(
  ctx: { loader: ItemLoader; metrics: EngineMetrics },
  slot: ModelSlot,
  items: readonly ParsedItem[],
  scope: RequestScope,
  batcher: Batcher = slot.batcher,
  input: ModelInput = slot.input,
): Promise<EncodedItem[]> {
  refuseSampling(items);
  return Promise.all(items.map(async (item) => (await encodeUnit(ctx, slot, item.field, scope, () => ctx.loader.load(slot, item, input), batcher))!));
}

/** One unit: loaded (null: a window the video never completed), then encoded; it gives its queue place back either way. */
async function encodeUnit(
  { metrics }: { metrics: EngineMetrics },
  slot: ModelSlot,
  field: string,
  scope: RequestScope,
  load: () => Promise<LoadedItem | null>,
  batcher: Batcher = slot.batcher,
): Promise<EncodedItem | null> {
  try {
    if (scope.dropped) throw new Dropped(scope.dropped);
    const arrived = batcher.announce();
    let loaded: LoadedItem | null;
    try {
      loaded = await load();
    } finally {
      arrived();
    }
    if (loaded === null) return null;
    return {
      out: await batcher.encode(loaded.tensor, loaded.still, scope.signal, scope.deadline),
      shape: loaded.tensor.shape,
      data: loaded.tensor.data,
    };
  } catch (err) {
    if (err instanceof Dropped) metrics.droppedItem(err.reason);
    const failure = err instanceof Dropped ? err : itemFailure(field, err);
    scope.drop('failed');
    throw failure;
  } finally {
    scope.ticket.release(1);
  }
}
