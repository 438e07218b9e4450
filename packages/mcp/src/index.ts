export { McpTools, DEFAULT_MAX_MEDIA_BYTES, type ToolsOptions, type ModelInfo, type Pool } from './mcp-tools.js';
export { createMcpServer, failureLine, type McpServerOptions } from './mcp-server.js';
export { MEDIA_KINDS, base64DecodedBytes, checkMediaSize, mediaItem, type MediaArg } from './media.js';
export { Roots, asRootError, rootPath, usableRoots } from './roots.js';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  LineChunks,
  messageId,
  serveStdio,
  takeStdout,
  type Oversize,
  type RunningMcp,
  type StdioOptions,
} from './stdio.js';
