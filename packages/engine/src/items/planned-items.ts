// A request's items with its sampled videos expanded into their windows (planned, not yet decoded).
import { badField } from '../errors.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { ItemLoader } from './item-loader.js';
import type { ParsedItem, Sampling } from './parse-item.js';
import type { VideoWindows } from './video-windows.js';
import type { ModelInput } from '@jepa/input';
import type { VideoWindow } from '@jepa/preprocess';

/** One unit of work: an item whole, or one window of a sampled item. */
export interface PlannedUnit {
  /** The item's place in the request. */
  index: number;
  item: ParsedItem;
  window: { video: VideoWindows; k: number; at: VideoWindow } | null;
}

/**
 * A request's items with the sampled videos expanded into their windows, in order. `count` is what
 * the request holds in the queue; `close` (after the request, however it ends) stops the decodes and
 * removes the temp files.
 */
export class PlannedItems {
  readonly units: PlannedUnit[] = [];
  readonly videos: VideoWindows[] = [];

  /** `input`: the recipe the items are loaded with (the model's own, or at the request's size). */
  constructor(readonly input: ModelInput) {}

  get count(): number {
    return this.units.length;
  }

  /** The one-line warnings of the truncated videos, in item order. */
  warnings(): string[] {
    return this.videos.map((v) => v.warning).filter((w): w is string => w !== null);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.videos.map((v) => v.close()));
  }
}

/**
 * Plans the sampled items' windows (ffprobe, no decode yet) and refuses a request whose items and
 * windows together are more than `maxItems` (--max-queue). Without sampled items it is the items as given.
 */
export async function planItems(
  loader: ItemLoader,
  slot: ModelSlot,
  items: readonly ParsedItem[],
  maxItems: number,
  input: ModelInput = slot.input,
): Promise<PlannedItems> {
  const planned = new PlannedItems(input);
  try {
    for (const [index, item] of items.entries()) {
      if (!item.sampling) {
        planned.units.push({ index, item, window: null });
        continue;
      }
      const video = await loader.windows(input, item as ParsedItem & { sampling: Sampling });
      planned.videos.push(video);
      for (const [k, at] of video.windows.entries()) planned.units.push({ index, item, window: { video, k, at } });
      if (planned.count + (items.length - index - 1) > maxItems)
        throw badField(
          item.sampling.field,
          `${video.windows.length} windows make the request ${planned.count + items.length - index - 1} items; at most ${maxItems} per request (--max-queue)`,
          'too_many_items',
        );
    }
    return planned;
  } catch (err) {
    await planned.close();
    throw err;
  }
}
