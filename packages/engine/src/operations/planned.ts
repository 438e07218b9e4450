import type { PlannedEncoded } from '../items/encode-items.js';
import { encodePlanned } from '../items/encode-items.js';
import type { ImageSize } from '../items/image-size.js';
import type { ParsedItem } from '../items/parse-item.js';
import { planItems } from '../items/planned-items.js';
import type { RequestScope } from '../queue/request-scope.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { CallOptions, EngineCore } from './engine-core.js';

/**
 * A request's items encoded in order through the model's batcher (sampled videos cut into windows),
 * loaded at `size` or the model's recipe, holding their places in the queue; `work` makes the answer
 * of them and of the warnings of videos cut short (within the request's scope). The decodes stop and the temp files go once it ends,
 * however it ends.
 */
export async function withEncodedItems<T>(
  core: EngineCore,
  slot: ModelSlot,
  items: readonly ParsedItem[],
  call: CallOptions,
  size: ImageSize | undefined,
  work: (encoded: PlannedEncoded[], warnings: string[], scope: RequestScope) => Promise<T>,
): Promise<T> {
  const plan = await planItems(core.loader, slot, items, core.maxQueue, slot.session.inputAt(size));
  try {
    return await core.scoped(plan.count, call, async (scope) => {
      const { encoded, warnings } = await encodePlanned(core, slot, plan, scope);
      return work(encoded, warnings, scope);
    });
  } finally {
    await plan.close();
  }
}
