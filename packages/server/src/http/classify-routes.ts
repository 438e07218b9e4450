// POST /v1/classify (the classifier head, or zero-shot labels through a dino.txt model's text side) and
// POST /v1/predict: the heads over the encoder's tokens. Each body is read whole
// before the engine resolves the model (whether it has the head included): a bad one never loads it.
import { MAX_LABELS, classifyFields, imageSize, parseIds, parseItems, parseTexts, predictFields, readFields, refuseSampling } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { encodeValues } from '../encoding.js';
import { objectBody, optionalChoice } from '../json.js';
import { callOf } from './call-options.js';
import { FORMATS } from './embedding-routes.js';
import type { ServerState } from './server-state.js';

export function headRoutes(app: FastifyInstance, state: ServerState): void {
  const { engine } = state;

  app.post('/v1/classify', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'labels', 'top_k', 'logits', 'size']);
    const { top_k: topK, logits: withLogits, size } = readFields(body, classifyFields);
    const items = parseItems(body.input, 'input', engine.maxQueue);
    // zero-shot: the labels scored through the model's text side instead of its head
    const labels = body.labels === undefined || body.labels === null ? undefined : parseTexts(body.labels, 'labels', MAX_LABELS);
    const r = await engine.classify({ model: body.model, items, topK, size: imageSize(size), labels }, callOf(reply));
    return {
      object: 'list',
      data: r.data.map((c) => ({
        object: 'classification',
        index: c.index,
        ...c.place,
        top: c.top.map((s) => ({ label: s.label, index: s.index, prob: s.prob, logit: s.logit })),
        ...(withLogits ? { logits: Array.from(c.logits) } : {}),
      })),
      model: r.model,
      usage: r.usage,
      ...(r.warnings.length > 0 ? { warnings: r.warnings } : {}),
    };
  });

  app.post('/v1/predict', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'context', 'target', 'mask_index', 'encoding_format']);
    const items = parseItems(body.input, 'input', 1);
    refuseSampling(items);
    const { mask_index: maskIndex } = readFields(body, predictFields);
    const contextIds = parseIds(body.context, 'context');
    const targetIds = parseIds(body.target, 'target');
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    const r = await engine.predict({ model: body.model, item: items[0]!, contextIds, targetIds, maskIndex }, callOf(reply));
    const dims = [r.targetIds.length, r.outDim];
    return {
      object: 'prediction',
      model: r.model,
      target_ids: r.targetIds,
      shape: dims,
      predictions: encodeValues(r.predictions, dims, format),
      usage: r.usage,
    };
  });
}
