// --no-predictor / --no-head: the parts a mapping read from the same table as the encoder (an HF V-JEPA 2
// folder) are dropped here, with their output tensors; a Meta pickle's predictor entry is not read at all
// (the mappings' wantsMetaPredictor).
import type { OutputTensor } from './mappings/tensor-map.js';
import type { MappedModel } from './mappings/types.js';

export interface TrimOptions {
  noPredictor?: boolean;
  noHead?: boolean;
}

/** The outputs without the parts left out; `mapped.parts` and its notes are updated to match. */
export function trimmed(mapped: MappedModel, outputs: Map<string, OutputTensor>, options: TrimOptions): Map<string, OutputTensor> {
  const drop: string[] = [];
  if (options.noPredictor && mapped.parts.pred) {
    mapped.parts.pred = null;
    mapped.notes.push('predictor left out (--no-predictor)');
    drop.push('pred.');
  }
  if (options.noHead && mapped.parts.head) {
    mapped.parts.head = null;
    mapped.parts.labels = null;
    mapped.notes.push('classifier head left out (--no-head)');
    drop.push('head.');
  }
  if (drop.length === 0) return outputs;
  return new Map([...outputs].filter(([name]) => !drop.some((prefix) => name.startsWith(prefix))));
}
