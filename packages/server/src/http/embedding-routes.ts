// POST /v1/embeddings (OpenAI's shape: media items and words) and POST /v1/features (PCA maps as PNGs).
import { badField, embedFields, featuresFields, imageSize, parseInputs, parseItems, readFields, refuseSampling } from '@jepa/engine';
import type { FastifyInstance } from 'fastify';
import { type EncodingFormat, encodeValues } from '../encoding.js';
import { objectBody, optionalChoice } from '../json.js';
import { callOf } from './call-options.js';
import type { ServerState } from './server-state.js';

export const FORMATS: readonly EncodingFormat[] = ['float', 'base64'];

export function embeddingRoutes(app: FastifyInstance, state: ServerState): void {
  const { engine } = state;

  app.post('/v1/embeddings', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'pool', 'normalize', 'encoding_format', 'size']);
    const { pool, normalize, size } = readFields(body, embedFields);
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    // media items, and words: strings or {text} items, alone or in an array, as OpenAI's input takes them
    const items = parseInputs(body.input, 'input', engine.maxQueue);
    // the body is read whole before the engine is asked for the model: a bad one never loads it
    const r = await engine.embed({ model: body.model, items, pool, normalize, size: imageSize(size) }, callOf(reply));
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

  // the PCA map of each item's patch features (packages/graph/src/pca.ts has the rule), as PNGs; with
  // include, each item's embedding and top classes from the same encode
  app.post('/v1/features', async (req, reply) => {
    const body = objectBody(req.body, ['model', 'input', 'include', 'pool', 'normalize', 'encoding_format', 'top_k', 'size']);
    const f = readFields(body, featuresFields);
    const include = new Set(f.include ?? []);
    for (const [key, needs] of [
      ['pool', 'embedding'],
      ['normalize', 'embedding'],
      ['encoding_format', 'embedding'],
      ['top_k', 'classes'],
    ] as const)
      if (body[key] !== undefined && body[key] !== null && !include.has(needs))
        throw badField(key, `shapes the ${needs === 'embedding' ? 'embedding' : 'classes'}: add "${needs}" to include`, 'unsupported_field');
    const format = optionalChoice(body, 'encoding_format', FORMATS, 'float')!;
    const items = parseItems(body.input, 'input', engine.maxQueue);
    refuseSampling(items);
    const r = await engine.features(
      {
        model: body.model,
        items,
        embedding: include.has('embedding') ? { pool: f.pool, normalize: f.normalize } : undefined,
        classes: include.has('classes') ? { topK: f.top_k } : undefined,
        size: imageSize(f.size),
      },
      callOf(reply),
    );
    return {
      object: 'list',
      data: r.maps.map((m, index) => {
        const v = r.embeddings?.[index];
        const c = r.classes?.[index];
        return {
          object: 'features.pca',
          index,
          width: m.width,
          height: m.height,
          grid: m.grid,
          explained_variance: m.explained,
          png: m.png.toString('base64'),
          view: m.view.toString('base64'),
          ...(v ? { embedding: encodeValues(v.values, v.shape, format), shape: v.shape } : {}),
          ...(c ? { top: c.top.map((s) => ({ label: s.label, index: s.index, prob: s.prob, logit: s.logit })) } : {}),
        };
      }),
      model: r.model,
      ...(r.pool ? { pool: r.pool } : {}),
      timing: { encode_ms: r.timing.encodeMs, pca_ms: r.timing.pcaMs, total_ms: r.timing.totalMs },
      usage: r.usage,
    };
  });
}
