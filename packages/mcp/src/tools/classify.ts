// `classify`: zero-shot classes of an image or a clip (per window with `sampling`) against labels given
// as words, through a dino.txt model's text side.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { classifyFields, labelsField, MAX_LABELS, parseTexts } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { classifyItem, classifyWindows } from './classify-video.js';
import { media, model, sampledItem, sampling, scoreOut, windowedOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerClassify(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'classify',
    {
      title: 'Classify by words',
      description:
        "Zero-shot classes of an image or a clip against the labels given (a dino.txt model): each label's score exp(logit_scale)·cos between the item's text-aligned vector and the label's, the softmax over the labels, the top k. Returns {model, top: [{label, index, prob, logit}], logits?}. With sampling, a long video's windows: {model, windows: [{window, start_s, end_s, frames, top}], warnings?}.",
      inputSchema: {
        model,
        media: media.describe('the image or clip to classify'),
        labels: labelsField,
        top_k: classifyFields.top_k.optional().describe('labels to return (default 5, at most the labels given)'),
        logits: classifyFields.logits.optional().describe("also return every label's score, in the labels' order"),
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
        const item = mediaItem('media', a.media as MediaArg, t.maxMediaBytes, 'image', null);
        const args = { model: a.model, topK: a.top_k, logits: a.logits, labels: parseTexts(a.labels, 'labels', MAX_LABELS) };
        if (a.sampling === undefined) return classifyItem(t.engine, { ...args, item }, extra.signal);
        return classifyWindows(t.engine, { ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );
}
