// The PCA map of each item's patch features, and the network's view of it, as PNGs.
import { encodeItems } from '../items/encode-items.js';
import { type ParsedItem, refuseSampling } from '../items/parse-item.js';
import { computeOnItems } from './compute-on-items.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';
import { type FeatureMap, featureMap } from './feature-map.js';

export interface FeaturesRequest {
  model?: unknown;
  items: readonly ParsedItem[];
}

export interface FeaturesResult {
  model: string;
  maps: FeatureMap[];
  timing: { encodeMs: number; pcaMs: number; totalMs: number };
  usage: Usage;
}

export async function features(core: EngineCore, req: FeaturesRequest, call: CallOptions = {}): Promise<FeaturesResult> {
  const started = performance.now();
  const slot = await core.model(req.model);
  refuseSampling(req.items);
  return core.scoped(req.items.length, call, async (scope) => {
    const encoded = await encodeItems(core, slot, req.items, scope);
    const encodedAt = performance.now();
    const maps = await computeOnItems('input', async () => encoded.map((e) => featureMap(slot.spec, e.out, e.shape, e.data)));
    core.metrics.itemsDone('features', req.items.length);
    return {
      model: slot.id,
      maps,
      timing: { encodeMs: encodedAt - started, pcaMs: maps.reduce((t, m) => t + m.ms, 0), totalMs: performance.now() - started },
      usage: usage(encoded.map((e) => e.out)),
    };
  });
}
