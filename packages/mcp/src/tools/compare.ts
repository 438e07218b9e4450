// `compare`: cosine similarities of items to a query, and their ranking.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model, pool } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerCompare(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'compare',
    {
      title: 'Compare media',
      description:
        'Cosine similarity of the pooled embeddings of each item to the query (images or videos, by extension or kind), and the items ranked by it (most similar first). One item: the similarity of two.',
      inputSchema: { model, query: media, items: z.array(media).min(1).max(255).describe('the items to set against the query'), pool },
      outputSchema: {
        model: z.string(),
        pool: z.string(),
        similarities: z.array(z.number()).describe("in the items' order"),
        ranking: z.array(z.object({ index: z.number().int(), similarity: z.number() })),
      },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() =>
        t.engine.compare(
          {
            model: a.model,
            query: mediaItem('query', a.query as MediaArg, t.maxMediaBytes, 'image', null),
            items: a.items.map((m, i) => mediaItem(`items[${i}]`, m as MediaArg, t.maxMediaBytes, 'image', null)),
            pool: a.pool,
          },
          extra.signal,
        ),
      ),
  );
}
