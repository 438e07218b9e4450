// The masked predictor: from an item's context tokens to its target tokens.
import { checkPredictorInputSize, predictorTokens } from '@jepa/graph';
import { requirePart } from '@jepa/session';
import { type EncodedItem, encodeItems } from '../items/encode-items.js';
import { type ParsedItem, refuseSampling } from '../items/parse-item.js';
import { computeOnItems } from './compute-on-items.js';
import type { ModelSlot } from '../registry/model-slot.js';
import { type CallOptions, type EngineCore, type Usage, usage } from './engine-core.js';

export interface PredictRequest {
  model?: unknown;
  item: ParsedItem;
  contextIds: readonly number[];
  targetIds: readonly number[];
  maskIndex?: number | undefined;
}

export interface PredictResult {
  model: string;
  targetIds: number[];
  /** The predicted target tokens, [targets, outDim] row-major. */
  predictions: Float32Array;
  outDim: number;
  /** The encoder's own tokens that the predictor read, [tokens, dim]. */
  encoder: { tokens: Float32Array; dim: number };
  usage: Usage;
}

export async function predict(core: EngineCore, req: PredictRequest, call: CallOptions = {}): Promise<PredictResult> {
  // checked on the header: a model without a masked predictor, or a sampled video, never loads it
  const { id, spec } = await core.header(req.model);
  requirePart(spec, id, 'predictor');
  refuseSampling([req.item]);
  return core.withModel(id, (slot) => predictOn(core, slot, req, call));
}

async function predictOn(core: EngineCore, slot: ModelSlot, req: PredictRequest, call: CallOptions): Promise<PredictResult> {
  const predictor = slot.predictor();
  return core.scoped(1, call, async (scope) => {
    // V-JEPA 2.1 g/G: the predictor reads the hierarchy levels, from an encoder of its own
    const [{ out, shape }] = (await encodeItems(core, slot, [req.item], scope, slot.predictorBatcher())) as [EncodedItem];
    const oneFrame = shape.length === 3 || shape[1] === 1;
    const result = await computeOnItems('input', () =>
      core.lane.run(() => {
        checkPredictorInputSize(slot.spec, shape);
        return predictor.predict({
          ...predictorTokens(out),
          contextIds: [...req.contextIds],
          targetIds: [...req.targetIds],
          ...(req.maskIndex !== undefined ? { maskIndex: req.maskIndex } : {}),
          modality: oneFrame ? 'image' : 'video',
        });
      }),
    );
    core.metrics.itemsDone('predict', 1);
    const { tokens, dim } = predictorTokens(out);
    return {
      model: slot.id,
      targetIds: [...req.targetIds],
      predictions: result.targets,
      outDim: result.outDim,
      encoder: { tokens, dim },
      usage: usage([out]),
    };
  });
}
