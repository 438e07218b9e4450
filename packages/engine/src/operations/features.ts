// The PCA map of each item's patch features, and the network's view of it, as PNGs; with `embedding`
// and `classes`, also each item's pooled vector and top classes from the same encoder output (one
// encode for all three, as the page at / wants them).
import type { ClassScore } from '@jepa/graph';
import { encodeItems } from '../items/encode-items.js';
import type { ImageSize } from '../items/image-size.js';
import { type ParsedItem, refuseSampling } from '../items/parse-item.js';
import { classifier } from './classify.js';
import { computeOnItems } from './compute-on-items.js';
import { headScores, pooledVectors } from './outputs.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';
import { type FeatureMap, featureMapOffThread } from './feature-map.js';
import type { Pool, Vector } from '@jepa/session';

export interface FeaturesRequest {
  model?: unknown;
  items: readonly ParsedItem[];
  /** Also each item's embedding, pooled as /v1/embeddings pools it. */
  embedding?: { pool?: Pool | undefined; normalize?: boolean | undefined } | undefined;
  /** Also each item's top classes (a model with a classifier head). */
  classes?: { topK?: number | undefined } | undefined;
  /** Another input size than the model's recipe (ImageSize). */
  size?: ImageSize | undefined;
}

export interface FeaturesResult {
  model: string;
  maps: FeatureMap[];
  /** Per item, where `embedding` was asked. */
  embeddings: Vector[] | null;
  pool: Pool | null;
  /** Per item, where `classes` was asked. */
  classes: { top: ClassScore[] }[] | null;
  timing: { encodeMs: number; pcaMs: number; totalMs: number };
  usage: Usage;
}

export function features(core: EngineCore, req: FeaturesRequest, call: CallOptions = {}): Promise<FeaturesResult> {
  return core.withModel(req.model, (slot) => featuresOn(core, slot, req, call));
}

async function featuresOn(core: EngineCore, slot: ModelSlot, req: FeaturesRequest, call: CallOptions): Promise<FeaturesResult> {
  const started = performance.now();
  refuseSampling(req.items);
  const pool = req.embedding ? slot.session.choosePool(req.embedding.pool) : null;
  const scorer = req.classes ? classifier(slot, req.classes.topK) : null;
  return core.scoped(req.items.length, call, async (scope) => {
    const encoded = await encodeItems(core, slot, req.items, scope, slot.batcher, slot.session.inputAt(req.size));
    const encodedAt = performance.now();
    const outs = encoded.map((e) => e.out);
    // the maps render on the map worker while the head and the pooling use this thread and the lane
    const maps = computeOnItems('input', () => Promise.all(encoded.map((e) => featureMapOffThread(slot.spec, e.out, e.shape, e.data))));
    maps.catch(() => {}); // awaited below; a failure of the pooling or the head first must not leave it unhandled
    const embeddings = pool === null ? null : await pooledVectors(core, slot, outs, pool, req.embedding?.normalize);
    const classes = scorer === null ? null : (await headScores(core, scorer.head, outs, scorer.k)).map((r) => ({ top: r.top }));
    const done = await maps;
    core.metrics.itemsDone('features', req.items.length);
    return {
      model: slot.id,
      maps: done,
      embeddings,
      pool,
      classes,
      timing: { encodeMs: encodedAt - started, pcaMs: done.reduce((t, m) => t + m.ms, 0), totalMs: performance.now() - started },
      usage: usage(outs),
    };
  });
}
