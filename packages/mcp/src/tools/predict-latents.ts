// `predict_latents`: the masked predictor's predictions at target ids, scored against the encoder.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { predictFields } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import { type ParsedItem, badField, parseIds } from '@jepa/engine';
import { cosine } from '@jepa/graph';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg } from './tool-answers.js';

export function registerPredictLatents(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'predict_latents',
    {
      title: 'Score latent predictions',
      description:
        "V-JEPA 2 masked predictor: from the encoder's tokens at the context ids, predict the tokens at the target ids, and return each prediction's cosine to the encoded token at that id (and their mean).",
      inputSchema: {
        model,
        media: media.describe('the clip (or image) to encode'),
        context: predictFields.context,
        target: predictFields.target,
        mask_index: predictFields.mask_index.optional(),
      },
      outputSchema: {
        model: z.string(),
        context_tokens: z.number().int(),
        target_ids: z.array(z.number().int()),
        dims: z.number().int(),
        cosines: z.array(z.number()).describe("one per target id, in the target's order"),
        mean_cosine: z.number(),
      },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() =>
        predictLatents(
          t.engine,
          {
            model: a.model,
            item: mediaItem('media', a.media as MediaArg, t.maxMediaBytes, 'video', null),
            context: a.context,
            target: a.target,
            maskIndex: a.mask_index,
          },
          extra.signal,
        ),
      ),
  );
}

/**
 * As /v1/predict (the masked predictor from the context tokens to the targets), then each predicted
 * target token's cosine to the encoder's own token at that id.
 */
export function predictLatents(
  tools: McpTools,
  args: ModelArg & { item: ParsedItem; context: unknown; target: unknown; maskIndex?: number | undefined },
  signal?: AbortSignal,
) {
  return tools.call(args.model, async () => {
    const contextIds = parseIds(args.context, 'context');
    const targetIds = parseIds(args.target, 'target');
    const r = await tools.engine.predict({ model: args.model, item: args.item, contextIds, targetIds, maskIndex: args.maskIndex }, callOf(signal));
    const { tokens, dim } = r.encoder;
    if (r.outDim !== dim)
      throw badField('model', `the predictor's tokens are ${r.outDim} wide and the encoder's ${dim}: they cannot be compared`, 'unsupported_model');
    const cosines = r.targetIds.map((id, i) => cosine(r.predictions.subarray(i * dim, (i + 1) * dim), tokens.subarray(id * dim, (id + 1) * dim)));
    return {
      model: r.model,
      context_tokens: contextIds.length,
      target_ids: r.targetIds,
      dims: dim,
      cosines,
      mean_cosine: cosines.reduce((a, b) => a + b, 0) / cosines.length,
    };
  });
}
