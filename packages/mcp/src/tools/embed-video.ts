// `embed_video`: a clip's pooled embedding, or a long video's windows with `sampling`.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { embeddingOut, media, model, normalize, pool, sampledItem, sampling, windowedOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

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
        if (a.sampling === undefined) return t.engine.embed({ ...args, item }, extra.signal);
        return t.engine.embedWindows({ ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );
}
