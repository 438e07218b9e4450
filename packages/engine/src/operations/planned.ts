import type { ModelInput } from '@jepa/input';
import { type PlannedItems, planItems } from '../items/planned-items.js';
import type { ParsedItem } from '../items/parse-item.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { EngineCore } from './engine-core.js';

/** A request's work on its planned items (sampled videos cut into windows); their decodes stop and their temp files go once it ends, however it ends. */
export async function withPlannedItems<T>(
  core: EngineCore,
  slot: ModelSlot,
  items: readonly ParsedItem[],
  work: (plan: PlannedItems) => Promise<T>,
  input: ModelInput = slot.input,
): Promise<T> {
  const plan = await planItems(core.loader, slot, items, core.maxQueue, input);
  try {
    return await work(plan);
  } finally {
    await plan.close();
  }
}
