// `classify_video`: the top-k labels of a clip's classifier head (per window with `sampling`).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { classifyFields } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model, sampledItem, sampling, scoreOut, windowedOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerClassifyVideo(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'classify_video',
    {
      title: 'Classify a clip',
      description:
        "Top-k labels of a clip from the model's attentive classifier head; a still image is repeated to the model's frames, as jepa classify does. Returns {model, top: [{label, index, prob, logit}]}. With sampling, a long video's windows: {model, windows: [{window, start_s, end_s, frames, top}], warnings?}.",
      inputSchema: {
        model,
        video: media,
        top_k: classifyFields.top_k.optional(),
        logits: classifyFields.logits.optional(),
        sampling,
      },
      outputSchema: {
        model: z.string(),
        top: z.array(scoreOut).optional().describe('without sampling'),
        logits: z.array(z.number()).optional(),
        ...windowedOut({ top: z.array(scoreOut), logits: z.array(z.number()).optional() }),
      },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() => {
        const item = mediaItem('video', a.video as MediaArg, t.maxMediaBytes, 'video', null);
        const args = { model: a.model, topK: a.top_k, logits: a.logits };
        if (a.sampling === undefined) return t.engine.classify({ ...args, item }, extra.signal);
        return t.engine.classifyWindows({ ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );
}
