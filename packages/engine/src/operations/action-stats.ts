import type { ActionStats } from '@jepa/worldmodel';
import { badField } from '../errors.js';

/** The request's action statistics (both or neither, A numbers each, no zero std), or null. */
export function requestActionStats(mean: readonly number[] | undefined, std: readonly number[] | undefined, actionDim: number): ActionStats | null {
  if ((mean === undefined) !== (std === undefined))
    throw badField(mean ? 'action_std' : 'action_mean', 'give action_mean and action_std together', 'missing_field');
  if (!mean || !std) return null;
  for (const [name, v] of [
    ['action_mean', mean],
    ['action_std', std],
  ] as const)
    if (v.length !== actionDim) throw badField(name, `must hold ${actionDim} numbers (the model's action width), got ${v.length}`);
  std.forEach((s, i) => {
    if (s === 0) throw badField(`action_std[${i}]`, 'must not be 0');
  });
  return { mean, std };
}
