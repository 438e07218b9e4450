// `embed_text`: the text vectors of words (a dino.txt model), in the space its images' aligned vectors are in.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type InputItem, MAX_LABELS, parseTexts } from '@jepa/engine';
import { z } from 'zod';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg } from './tool-answers.js';
import { model, normalize } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerEmbedText(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'embed_text',
    {
      title: 'Embed words',
      description:
        "The text vectors of one or more texts through a dino.txt model's text side, in the space of its images' aligned vectors (embed_image's default pool there). Returns {model, dims, embeddings: [[...]]}, one per text in order: jepa serve's /v1/embeddings values for string inputs.",
      inputSchema: {
        model,
        text: z.union([z.string(), z.array(z.string()).min(1).max(MAX_LABELS)]).describe('a text, or several'),
        normalize,
      },
      outputSchema: { model: z.string(), dims: z.number().int(), embeddings: z.array(z.array(z.number())) },
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() => embedTexts(t.engine, { model: a.model, texts: parseTexts(a.text, 'text', MAX_LABELS), normalize: a.normalize }, extra.signal)),
  );
}

/** As /v1/embeddings on string inputs: one text vector per text, in order. */
export function embedTexts(
  tools: McpTools,
  args: ModelArg & { texts: readonly string[]; normalize?: boolean | undefined },
  signal?: AbortSignal,
): Promise<{ model: string; dims: number; embeddings: number[][] }> {
  return tools.call(args.model, async () => {
    const items: InputItem[] = args.texts.map((text, i) => ({ field: `text[${i}]`, kind: 'text', text }));
    const r = await tools.engine.embed({ model: args.model, items, normalize: args.normalize }, callOf(signal));
    return { model: r.model, dims: r.data[0]!.vector.values.length, embeddings: r.data.map((e) => Array.from(e.vector.values)) };
  });
}
