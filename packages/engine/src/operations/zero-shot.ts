// Zero-shot classes: each item's text-aligned vector scored against the labels' text vectors by the
// session's score (exp(logit_scale)·cos), then the softmax over the labels and the top k.
import { topLabels } from '@jepa/session';
import { badField } from '../errors.js';
import type { ModelSlot } from '../registry/model-slot.js';
import type { ClassifyRequest, ClassifyResult } from './classify.js';
import { type CallOptions, type EngineCore, usage } from './engine-core.js';
import { pooledVectors } from './outputs.js';
import { withEncodedItems } from './planned.js';
import { ALIGNED, labelScores, requireText, textVectors } from './text-side.js';

/** Labels to return: top_k (default 5) of the labels given, checked before the model loads. */
function labelCount(labels: readonly string[], topK: number | undefined): number {
  const k = topK ?? Math.min(5, labels.length);
  if (k > labels.length) throw badField('top_k', `at most ${labels.length} (the labels given)`);
  return k;
}

export async function zeroShot(core: EngineCore, req: ClassifyRequest & { labels: readonly string[] }, call: CallOptions): Promise<ClassifyResult> {
  const { id, spec } = await core.header(req.model);
  requireText(spec, id);
  const k = labelCount(req.labels, req.topK);
  return core.withModel(id, (slot) => zeroShotOn(core, slot, req, k, call));
}

async function zeroShotOn(core: EngineCore, slot: ModelSlot, req: ClassifyRequest & { labels: readonly string[] }, k: number, call: CallOptions) {
  return withEncodedItems(core, slot, req.items, call, req.size, async (encoded, warnings, scope) => {
    const outs = encoded.map((e) => e.out);
    const images = await pooledVectors(core, slot, outs, ALIGNED, false);
    const labels = await textVectors(slot, req.labels, false, scope.signal, core.metrics);
    const scores = labelScores(slot, images, labels);
    core.metrics.itemsDone('classify', encoded.length);
    return {
      model: slot.id,
      data: encoded.map((e, i) => {
        const logits = scores[i]!;
        return { index: e.index, place: e.place, top: topLabels(logits, req.labels, k), logits };
      }),
      usage: usage(outs),
      warnings,
    };
  });
}
