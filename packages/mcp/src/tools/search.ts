// `search`: the rows of the index nearest a query (media or words) or a stored row.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { textField } from '@jepa/engine';
import { media, model, sampling, sampledItem } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { IndexSearch } from '../index-search.js';
import type { McpTools } from '../mcp-tools.js';
import { callOf } from './tool-answers.js';

export function registerSearch(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'search',
    {
      title: 'Search the index',
      description:
        'The rows of the index (jepa mcp --index DIR, filled by jepa index add) nearest a query image or clip, words (an index made by a dino.txt model), or a stored row, by cosine: {model, rows, results: [{id, path, score, window?, start_s?, end_s?}]}, best first; the rows jepa search --json gives.',
      inputSchema: {
        model,
        query: media.optional().describe('an image or a clip (with sampling: its first window)'),
        text: textField.optional(),
        row: z.number().int().min(1).optional().describe("a stored row's id instead of a query (left out of the results)"),
        k: z.number().int().min(1).max(1000).optional().describe('how many results (default 10)'),
        exact: z.boolean().optional().describe('search every row (default: the approximate index from 50,000 rows)'),
        sampling,
      },
      outputSchema: {
        model: z.string().nullable(),
        rows: z.number().int(),
        results: z.array(
          z.object({
            id: z.number().int(),
            path: z.string(),
            score: z.number(),
            window: z.number().int().optional(),
            start_s: z.number().optional(),
            end_s: z.number().optional(),
          }),
        ),
      },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() => {
        const query = a.query === undefined ? undefined : mediaItem('query', a.query as MediaArg, t.maxMediaBytes, 'image', null);
        const item = query !== undefined && a.sampling !== undefined ? sampledItem(query, a.sampling) : query;
        return searchIndex(t.engine, { model: a.model, item, text: a.text, row: a.row, k: a.k, exact: a.exact }, extra.signal);
      }),
  );
}

/** The rows of the --index nearest a query (media the engine embeds, or words), or a stored row, as POST /v1/search. */
export function searchIndex(tools: McpTools, args: Parameters<IndexSearch['search']>[0], signal?: AbortSignal): ReturnType<IndexSearch['search']> {
  return tools.call(args.model, () => tools.index.search(args, callOf(signal)));
}
