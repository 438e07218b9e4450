// `classify_video`: the top-k labels of a clip's classifier head (per window with `sampling`).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { classifyFields } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model, sampledItem, sampling, scoreOut, windowedOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { ParsedItem } from '@jepa/engine';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg, score, withWarnings } from './tool-answers.js';

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
        if (a.sampling === undefined) return classifyItem(t.engine, { ...args, item }, extra.signal);
        return classifyWindows(t.engine, { ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );
}

type ClassifyArgs = ModelArg & { item: ParsedItem; topK?: number | undefined; logits?: boolean | undefined; labels?: readonly string[] | undefined };

/** As /v1/classify on one item: the head's classes, or the labels' with `labels` (zero-shot). */
export function classifyItem(tools: McpTools, args: ClassifyArgs, signal?: AbortSignal) {
  return tools.call(args.model, async () => {
    const r = await tools.engine.classify({ model: args.model, items: [args.item], topK: args.topK, labels: args.labels }, callOf(signal));
    const c = r.data[0]!;
    return { model: r.model, top: c.top.map(score), ...(args.logits ? { logits: Array.from(c.logits) } : {}) };
  });
}

/** As /v1/classify on one video item with sampling: the top-k labels of each window, in order. */
export function classifyWindows(tools: McpTools, args: ClassifyArgs, signal?: AbortSignal) {
  return tools.call(args.model, async () => {
    const r = await tools.engine.classify({ model: args.model, items: [args.item], topK: args.topK, labels: args.labels }, callOf(signal));
    const windows = r.data.map((c) => ({
      ...c.place!,
      top: c.top.map(score),
      ...(args.logits ? { logits: Array.from(c.logits) } : {}),
    }));
    return { model: r.model, windows, ...withWarnings(r.warnings) };
  });
}
