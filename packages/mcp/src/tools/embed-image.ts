// `embed_image`: an image's pooled embedding, as /v1/embeddings gives it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mediaItem, type MediaArg } from '../media.js';
import { imageSize } from '@jepa/engine';
import { media, model, pool, normalize, size, embeddingOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerEmbedImage(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'embed_image',
    {
      title: 'Embed an image',
      description:
        "The pooled embedding of an image (a video model gets the still repeated to its frames, as jepa embed does). Returns {model, pool, dims, embedding}: jepa serve's /v1/embeddings values.",
      inputSchema: { model, image: media, pool, normalize, size },
      outputSchema: embeddingOut,
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() =>
        t.engine.embed(
          {
            model: a.model,
            item: mediaItem('image', a.image as MediaArg, t.maxMediaBytes, 'image', 'image'),
            pool: a.pool,
            normalize: a.normalize,
            size: imageSize(a.size),
          },
          extra.signal,
        ),
      ),
  );
}
