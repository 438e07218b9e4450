// The classifier head on each item (or each window of a sampled video); a request with labels is zero-shot.ts's.
import type { ModelSpec } from '@jepa/gguf';
import type { ClassScore } from '@jepa/graph';
import { requirePart } from '@jepa/session';
import { badField } from '../errors.js';
import type { WindowPlace } from '../items/encode-items.js';
import type { ImageSize } from '../items/image-size.js';
import type { ParsedItem } from '../items/parse-item.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';
import { headScores } from './outputs.js';
import { withEncodedItems } from './planned.js';

export interface ClassifyRequest {
  model?: unknown;
  items: readonly ParsedItem[];
  /** Classes to return, best first (default 5, at most the head's classes). */
  topK?: number | undefined;
  /** Another input size than the model's recipe (ImageSize). */
  size?: ImageSize | undefined;
  /** Zero-shot: these labels through the model's text side instead of its head (a dino.txt model). */
  labels?: readonly string[] | undefined;
}

export interface ItemClasses {
  index: number;
  place: WindowPlace | null;
  top: ClassScore[];
  logits: Float32Array;
}

export interface ClassifyResult {
  model: string;
  data: ItemClasses[];
  usage: Usage;
  warnings: string[];
}

/** How many classes to return, from the model's header: a model without a head, or too many classes, is refused before it loads. */
export function classCount(id: string, spec: ModelSpec, topK: number | undefined): number {
  requirePart(spec, id, 'head');
  const classes = spec.head!.nClasses;
  const k = topK ?? Math.min(5, classes);
  if (k > classes) throw badField('top_k', `at most ${classes} (the head's classes)`);
  return k;
}

/** The model's head and how many classes to return. */
export function classifier(slot: ModelSlot, topK: number | undefined) {
  const k = classCount(slot.id, slot.spec, topK);
  return { head: slot.head(), k };
}

export async function classify(core: EngineCore, req: ClassifyRequest, call: CallOptions = {}): Promise<ClassifyResult> {
  const { id, spec } = await core.header(req.model);
  classCount(id, spec, req.topK);
  return core.withModel(id, (slot) => classifyOn(core, slot, req, call));
}

async function classifyOn(core: EngineCore, slot: ModelSlot, req: ClassifyRequest, call: CallOptions): Promise<ClassifyResult> {
  const { head, k } = classifier(slot, req.topK);
  return withEncodedItems(core, slot, req.items, call, req.size, async (encoded, warnings) => {
    const outs = encoded.map((e) => e.out);
    const results = await headScores(core, head, outs, k);
    core.metrics.itemsDone('classify', encoded.length);
    return {
      model: slot.id,
      data: results.map((r, i) => ({ index: encoded[i]!.index, place: encoded[i]!.place, top: r.top, logits: r.logits })),
      usage: usage(outs),
      warnings,
    };
  });
}
