// `embed_image`: an image's pooled embedding, as /v1/embeddings gives it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mediaItem, type MediaArg } from '../media.js';
import { imageSize } from '@jepa/engine';
import { media, model, pool, normalize, size, embeddingOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { ImageSize, ParsedItem, Pool } from '@jepa/engine';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg } from './tool-answers.js';

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
        embedItem(
          t.engine,
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

/** As /v1/embeddings on one item: its pooled vector. */
export function embedItem(
  tools: McpTools,
  args: ModelArg & { item: ParsedItem; pool?: Pool | undefined; normalize?: boolean | undefined; size?: ImageSize | undefined },
  signal?: AbortSignal,
): Promise<{ model: string; pool: Pool; dims: number; embedding: number[] }> {
  return tools.call(args.model, async () => {
    const r = await tools.engine.embed(
      { model: args.model, items: [args.item], pool: args.pool, normalize: args.normalize, size: args.size },
      callOf(signal),
    );
    const v = r.data[0]!.vector.values;
    return { model: r.model, pool: r.pool, dims: v.length, embedding: Array.from(v) };
  });
}
