// `list_models`: the models served, their widths and the tools each serves; and the hf: models the caches hold.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { hubModelOut, modelOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerListModels(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'list_models',
    {
      title: 'List the models',
      description:
        "The models served: id, family, embedding width (dims), trained frames and image size, a head's labels, and the tools each serves. Then `cached`: the hf:ORG/NAME models the Hugging Face cache holds that are not served yet (any tool's model may name one: it is pulled and converted first).",
      inputSchema: {},
      outputSchema: { models: z.array(modelOut), cached: z.array(hubModelOut) },
      annotations: READ_ONLY,
    },
    async () =>
      t.run(async () => ({
        models: await t.engine.models(),
        cached: await t.engine.cachedModels(),
      })),
  );
}
