// What every tool's registration is handed: the engine calls, the one way a call answers or fails, and
// the size bound on inline media.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpTools } from '../mcp-tools.js';

export interface ToolContext {
  readonly engine: McpTools;
  /** Runs a tool's work once the roots are in: its answer, or an isError result with one readable line. */
  run(work: () => Promise<Record<string, unknown>>): Promise<CallToolResult>;
  /** The largest inline (base64) media a call may carry. */
  readonly maxMediaBytes: number;
}

/** Every jepa tool reads and computes; none writes or reaches outside the roots. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
