// The MCP server: the tools (one file each in tools/), their answers (compact JSON text plus
// structuredContent), failures as isError results with one readable line, and the client's roots.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngineError } from '@jepa/engine';
import { isUserFacing } from '@jepa/errors';
import type { McpTools } from './mcp-tools.js';
import { registerClassify } from './tools/classify.js';
import { registerClassifyVideo } from './tools/classify-video.js';
import { registerCompare } from './tools/compare.js';
import { registerEmbedImage } from './tools/embed-image.js';
import { registerEmbedText } from './tools/embed-text.js';
import { registerEmbedVideo } from './tools/embed-video.js';
import { registerListModels } from './tools/list-models.js';
import { registerPlan } from './tools/plan.js';
import { registerPredictLatents } from './tools/predict-latents.js';
import { registerSearch } from './tools/search.js';
import type { ToolContext } from './tools/tool-context.js';

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** The tools, one file each under tools/, in the order tools/list gives them. */
const TOOLS = [
  registerListModels,
  registerEmbedImage,
  registerEmbedVideo,
  registerEmbedText,
  registerCompare,
  registerClassify,
  registerClassifyVideo,
  registerPredictLatents,
  registerSearch,
  registerPlan,
];

/** Compact JSON text and the same object as structuredContent. */
function answer(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** One readable line: the refusal's own message (it names the argument), or "internal error: …" (logged in full). */
export function failureLine(err: unknown, log: (line: string) => void): string {
  let message: string;
  if (err instanceof EngineError || isUserFacing(err)) message = err.message;
  else {
    const cause = err;
    log(`internal error: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
    message = `internal error: ${cause instanceof Error ? cause.message : String(cause)}`;
  }
  return message.replace('(GET /v1/models lists them)', '(list_models names them)').replace(/\s*[\r\n]+\s*/g, ' ');
}

export interface McpServerOptions {
  /** Where roots changes and internal errors are reported (never stdout). */
  log?: (line: string) => void;
}

/** An McpServer with jepa's tools over `engine`; connect it to a transport. */
export function createMcpServer(engine: McpTools, options: McpServerOptions = {}): McpServer {
  const log = options.log ?? (() => {});
  const server = new McpServer(
    { name: 'jepa', version },
    {
      capabilities: { tools: {} },
      instructions:
        'JEPA vision models: embed images and videos (and words, with a dino.txt model), compare them, classify clips (or by words), score latent predictions, plan with a LeWorldModel. Call list_models first. Media: an absolute path under the roots, a data: URI, or {"data": base64}.',
    },
  );

  // the client's roots replace --root: asked for once initialized, again on roots/list_changed; a
  // call that names a path waits for the answer in progress
  let rootsSync: Promise<void> = Promise.resolve();
  const syncRoots = () => {
    rootsSync = rootsSync.then(async () => {
      try {
        const { roots } = await server.server.listRoots();
        const r = await engine.roots.replace(roots.map((x) => x.uri));
        for (const line of r.refused) log(`root not used: ${line}`);
        if (r.applied) log(`roots (from the client): ${engine.roots.paths.join(', ')}`);
        else log("the client's roots hold no usable folder; the roots stay as they were");
      } catch (err) {
        log(`roots/list failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return rootsSync;
  };
  server.server.oninitialized = () => {
    if (server.server.getClientCapabilities()?.roots) void syncRoots();
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await syncRoots();
  });

  const run = async (work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    try {
      await rootsSync;
      return answer(await work());
    } catch (err) {
      return { content: [{ type: 'text', text: failureLine(err, log) }], isError: true };
    }
  };

  const tools: ToolContext = { engine, run, maxMediaBytes: engine.maxMediaBytes };
  for (const register of TOOLS) register(server, tools);
  return server;
}
