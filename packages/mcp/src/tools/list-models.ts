// `list_models`: the loaded models, their widths and the tools each serves.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { modelOut } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';

export function registerListModels(server: McpServer, t: ToolContext): void {
  server.registerTool(
    'list_models',
    {
      title: 'List the models',
      description:
        "The loaded models: id, family, embedding width (dims), trained frames and image size, a head's labels, and the tools each serves.",
      inputSchema: {},
      outputSchema: { models: z.array(modelOut) },
      annotations: READ_ONLY,
    },
    async () => t.run(async () => ({ models: await t.engine.models() })),
  );
}
