// `predict_latents`: the masked predictor's predictions at target ids, scored against the encoder.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { predictFields } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

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
        t.engine.predictLatents(
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
