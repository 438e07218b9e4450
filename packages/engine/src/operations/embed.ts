// Embeddings: each item (or each window of a sampled video) pooled, optionally L2-normalised; words
// (text items) through the model's text side, its images then in the text-aligned space.
import { choosePool } from '@jepa/session';
import { badField } from '../errors.js';
import type { WindowPlace } from '../items/encode-items.js';
import type { ImageSize } from '../items/image-size.js';
import type { ParsedItem } from '../items/parse-item.js';
import { type InputItem, type TextItem, isText } from '../items/text-item.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';
import { withEncodedItems } from './planned.js';
import { pooledVectors } from './outputs.js';
import { ALIGNED, requireText, textTokens, textVectors } from './text-side.js';
import type { Pool, Vector } from '@jepa/session';

export interface EmbedRequest {
  /** A model id; undefined where the engine serves one model. */
  model?: unknown;
  /** Media items, and text items for a model with a text side. */
  items: readonly InputItem[];
  /** Default: the text-aligned vector where the model has a text side, else CLS where it has one, else the patch mean. */
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

export async function embed(core: EngineCore, req: EmbedRequest, call: CallOptions = {}): Promise<EmbedResult> {
  if (!req.items.some(isText)) return core.withModel(req.model, (slot) => embedOn(core, slot, req.items as ParsedItem[], req, call));
  // words: checked against the header before the model loads
  const { id, spec } = await core.header(req.model);
  requireText(spec, id);
  const pool = choosePool(spec, req.pool);
  if (pool !== ALIGNED) throw badField('pool', `text is embedded in the text-aligned space: "${ALIGNED}" (or leave pool out), not "${pool}"`);
  return core.withModel(id, (slot) => embedMixed(core, slot, req, call));
}

async function embedOn(core: EngineCore, slot: ModelSlot, items: readonly ParsedItem[], req: EmbedRequest, call: CallOptions): Promise<EmbedResult> {
  const pool = slot.session.choosePool(req.pool);
  if (items.length === 0) return { model: slot.id, pool, data: [], usage: { items: 0, tokens: 0 }, warnings: [] };
  return withEncodedItems(core, slot, items, call, req.size, async (encoded, warnings) => {
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

/** Texts and media of one request: each side embedded on its own, the answers back in the request's order. */
async function embedMixed(core: EngineCore, slot: ModelSlot, req: EmbedRequest, call: CallOptions): Promise<EmbedResult> {
  const media: { at: number; item: ParsedItem }[] = [];
  const texts: { at: number; item: TextItem }[] = [];
  for (const [at, item] of req.items.entries()) {
    if (isText(item)) texts.push({ at, item });
    else media.push({ at, item });
  }
  const images = await embedOn(
    core,
    slot,
    media.map((m) => m.item),
    req,
    call,
  );
  const words = await core.scoped(texts.length, call, (scope) =>
    textVectors(
      slot,
      texts.map((t) => t.item.text),
      req.normalize,
      scope.signal,
      core.metrics,
    ),
  );
  core.metrics.itemsDone('embed', texts.length);
  const data: Embedding[] = [
    ...images.data.map((e) => ({ ...e, index: media[e.index]!.at })),
    ...words.map((vector, i) => ({ index: texts[i]!.at, place: null, vector })),
  ].sort((a, b) => a.index - b.index);
  return {
    model: slot.id,
    pool: images.pool,
    data,
    usage: {
      items: images.usage.items + texts.length,
      tokens:
        images.usage.tokens +
        textTokens(
          slot,
          texts.map((t) => t.item.text),
        ),
    },
    warnings: images.warnings,
  };
}
