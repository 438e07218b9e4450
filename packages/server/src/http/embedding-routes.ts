// POST /v1/embeddings (OpenAI's shape) and POST /v1/features (PCA maps as PNGs).
import { embedFields, parseItems, readFields, refuseSampling } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { type EncodingFormat, encodeValues } from '../encoding.js';
import { objectBody, optionalChoice } from '../json.js';
import { callOf } from './call-options.js';
import type { ServerState } from './server-state.js';

export const FORMATS: readonly EncodingFormat[] = ['float', 'base64'];

export function embeddingRoutes(app: FastifyInstance, state: ServerState): void {
  const { engine } = state;

  app.post('/v1/embeddings', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'pool', 'normalize', 'encoding_format']);
    const slot = await engine.model(body.model);
    const { pool, normalize } = readFields(body, embedFields);
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    const items = parseItems(body.input, 'input', engine.maxQueue);
    const r = await engine.embed({ model: slot.id, items, pool, normalize }, callOf(reply));
    return {
      object: 'list',
      data: r.data.map((e) => ({
        object: 'embedding',
        index: e.index,
        ...e.place,
        embedding: encodeValues(e.vector.values, e.vector.shape, format),
        shape: e.vector.shape,
      })),
      model: r.model,
      usage: r.usage,
      ...(r.warnings.length > 0 ? { warnings: r.warnings } : {}),
    };
  });

  // the PCA map of each item's patch features (packages/graph/src/pca.ts has the rule), as PNGs
  app.post('/v1/features', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input']);
    const slot = await engine.model(body.model);
    const items = parseItems(body.input, 'input', engine.maxQueue);
    refuseSampling(items);
    const r = await engine.features({ model: slot.id, items }, callOf(reply));
    return {
      object: 'list',
      data: r.maps.map((m, index) => ({
        object: 'features.pca',
        index,
        width: m.width,
        height: m.height,
        grid: m.grid,
        explained_variance: m.explained,
        png: m.png.toString('base64'),
        view: m.view.toString('base64'),
      })),
      model: r.model,
      timing: { encode_ms: r.timing.encodeMs, pca_ms: r.timing.pcaMs, total_ms: r.timing.totalMs },
      usage: r.usage,
    };
  });
}
