// `embed_video`: a clip's pooled embedding, or a long video's windows with `sampling`.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { embeddingOut, media, model, normalize, pool, sampledItem, sampling, windowedOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { ParsedItem, Pool, WindowPlace } from '@jepa/engine';
import type { McpTools } from '../mcp-tools.js';
import { embedItem } from './embed-image.js';
import { callOf, type ModelArg, type Warnings, withWarnings } from './tool-answers.js';

export function registerEmbedVideo(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'embed_video',
    {
      title: 'Embed a video',
      description:
        "The pooled embedding of a video clip (ffmpeg samples the model's frames), or of .npy frames / a preprocessed tensor. Returns {model, pool, dims, embedding}. With sampling, a long video's windows: {model, pool, dims, windows: [{window, start_s, end_s, frames, embedding}], warnings?}.",
      inputSchema: { model, video: media, pool, normalize, sampling },
      outputSchema: {
        ...embeddingOut,
        embedding: embeddingOut.embedding.optional().describe('without sampling'),
        ...windowedOut({ embedding: z.array(z.number()) }),
      },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() => {
        const item = mediaItem('video', a.video as MediaArg, t.maxMediaBytes, 'video', 'video');
        const args = { model: a.model, pool: a.pool, normalize: a.normalize };
        if (a.sampling === undefined) return embedItem(t.engine, { ...args, item }, extra.signal);
        return embedWindows(t.engine, { ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );
}

/** As /v1/embeddings on one video item with sampling: one pooled vector per window, in order. */
export function embedWindows(
  tools: McpTools,
  args: ModelArg & { item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined },
  signal?: AbortSignal,
): Promise<{ model: string; pool: Pool; dims: number; windows: (WindowPlace & { embedding: number[] })[] } & Warnings> {
  return tools.call(args.model, async () => {
    const r = await tools.engine.embed({ model: args.model, items: [args.item], pool: args.pool, normalize: args.normalize }, callOf(signal));
    // no windows: the width the model's card gives its vectors
    const card = r.data.length > 0 ? null : await tools.engine.card(r.model);
    const dims = r.data[0]?.vector.values.length ?? (r.pool === 'lewm' ? card!.state_dims! : card!.dims);
    const windows = r.data.map((e) => ({ ...e.place!, embedding: Array.from(e.vector.values) }));
    return { model: r.model, pool: r.pool, dims, windows, ...withWarnings(r.warnings) };
  });
}
