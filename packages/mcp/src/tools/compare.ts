// `compare`: cosine similarities of items to a query, and their ranking.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model, pool } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { ParsedItem, Pool } from '@jepa/engine';
import { cosine } from '@jepa/graph';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg } from './tool-answers.js';

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
        compareItems(
          t.engine,
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

/** Cosine similarity of each item's pooled vector to the query's (float64 sums), and the items ranked by it. */
export function compareItems(
  tools: McpTools,
  args: ModelArg & { query: ParsedItem; items: readonly ParsedItem[]; pool?: Pool | undefined },
  signal?: AbortSignal,
): Promise<{ model: string; pool: Pool; similarities: number[]; ranking: { index: number; similarity: number }[] }> {
  return tools.call(args.model, async () => {
    const r = await tools.engine.embed({ model: args.model, items: [args.query, ...args.items], pool: args.pool }, callOf(signal));
    const [q, ...vs] = r.data.map((e) => e.vector.values);
    const similarities = vs.map((v) => cosine(q!, v));
    const ranking = similarities.map((similarity, index) => ({ index, similarity })).sort((a, b) => b.similarity - a.similarity || a.index - b.index);
    return { model: r.model, pool: r.pool, similarities, ranking };
  });
}
