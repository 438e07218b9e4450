// Embeddings: each item (or each window of a sampled video) pooled, optionally L2-normalised.
import type { WindowPlace } from '../items/encode-items.js';
import type { ImageSize } from '../items/image-size.js';
import type { ParsedItem } from '../items/parse-item.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';
import { withEncodedItems } from './planned.js';
import { pooledVectors } from './outputs.js';
import type { Pool, Vector } from '@jepa/session';

export interface EmbedRequest {
  /** A model id; undefined where the engine serves one model. */
  model?: unknown;
  items: readonly ParsedItem[];
  /** Default: CLS where the model has one, else the patch mean. */
  pool?: Pool | undefined;
  /** Scale each vector (each token's, for pool none) to unit length. */
  normalize?: boolean | undefined;
  /** Another input size than the model's recipe (ImageSize). */
  size?: ImageSize | undefined;
}

export interface Embedding {
  /** The item's place in the request. */
  index: number;
  /** Where the window lies, for a window of a sampled video. */
  place: WindowPlace | null;
  vector: Vector;
}

export interface EmbedResult {
  model: string;
  pool: Pool;
  data: Embedding[];
  usage: Usage;
  /** One line per sampled video that ended before its last window. */
  warnings: string[];
}

export function embed(core: EngineCore, req: EmbedRequest, call: CallOptions = {}): Promise<EmbedResult> {
  return core.withModel(req.model, (slot) => embedOn(core, slot, req, call));
}

async function embedOn(core: EngineCore, slot: ModelSlot, req: EmbedRequest, call: CallOptions): Promise<EmbedResult> {
  const pool = slot.session.choosePool(req.pool);
  return withEncodedItems(core, slot, req.items, call, req.size, async (encoded, warnings) => {
    const outs = encoded.map((e) => e.out);
    const vectors = await pooledVectors(core, slot, outs, pool, req.normalize);
    core.metrics.itemsDone('embed', encoded.length);
    return {
      model: slot.id,
      pool,
      data: encoded.map((e, i) => ({ index: e.index, place: e.place, vector: vectors[i]! })),
      usage: usage(outs),
      warnings,
    };
  });
}
