// `jepa mcp`: the models as Model Context Protocol tools on stdio (@jepa/mcp), until the client
// closes stdin or SIGTERM / SIGINT. stdout is the protocol's alone; every log line is `jepa: …` on stderr.
import type { Command } from 'commander';
import type { serveStdio } from '@jepa/mcp';
import { defaultThreads } from '@jepa/native';
import { positiveInt } from '../runtime-options.js';
import { checkInputFolder, UserError } from '../user-error.js';
import { servedModel } from '../hub-model.js';
import { say } from '../display-text.js';

interface McpFlags {
  model?: string[];
  modelsDir?: string;
  root?: string[];
  maxMediaMb: number;
  maxMessageMb: number;
  maxBatch: number;
  timeoutMs: number;
  threads?: number;
  index?: string;
}

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve models to agents over the Model Context Protocol (stdio): embed, compare, classify, predict_latents, plan')
    .option('-m, --model <gguf...>', 'model files (each known by its file name without .gguf) or hf:ORG/NAME references (known by the reference)')
    .option('--models-dir <dir>', 'every .gguf in this folder too')
    .option('--root <dirs...>', "folders whose files path arguments may name (the client's MCP roots replace them)")
    .option('--max-media-mb <n>', 'largest base64 / data: media argument, decoded', positiveInt, 64)
    .option('--max-message-mb <n>', 'longest JSON-RPC message read; longer ones get a JSON-RPC error', positiveInt, 256)
    .option('--max-batch <n>', 'still images per encoder graph', positiveInt, 8)
    .option('--timeout-ms <ms>', 'a tool call not done in this fails', positiveInt, 120_000)
    .option(
      '-t, --threads <n>',
      'CPU threads per model (default: JEPA_THREADS, else the CPUs this process may use, a CFS quota rounded up)',
      positiveInt,
    )
    .option('--index <dir>', 'an index (jepa index add) for the search tool')
    .action(async (flags: McpFlags) => {
      for (const m of flags.model ?? []) servedModel(m);
      if (flags.modelsDir !== undefined) checkInputFolder(flags.modelsDir, '--models-dir');
      for (const r of flags.root ?? []) checkInputFolder(r, '--root');
      let running: Awaited<ReturnType<typeof serveStdio>>;
      try {
        // loaded here, not at the top: every other command starts without the MCP SDK
        const { serveStdio } = await import('@jepa/mcp');
        running = await serveStdio({
          models: flags.model ?? [],
          modelsDir: flags.modelsDir,
          roots: flags.root ?? [],
          maxMediaBytes: flags.maxMediaMb * 2 ** 20,
          maxMessageBytes: flags.maxMessageMb * 2 ** 20,
          maxBatch: flags.maxBatch,
          timeoutMs: flags.timeoutMs,
          // read before serving: a bad JEPA_THREADS stops the start, not the first tool call
          threads: flags.threads ?? defaultThreads(),
          index: flags.index,
          log: say,
        });
      } catch (err) {
        throw new UserError(err instanceof Error ? err.message : String(err));
      }
      const stop = (signal: string) => {
        say(`${signal}: stopping`);
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      const served = running.engine.engine.residencies().models;
      const loading = flags.model?.length ?? 0;
      // --model files load now, --models-dir ones on their first call
      say(`mcp on stdio; ${served} model(s), ${loading} loading; roots: ${running.engine.roots.paths.join(', ') || 'none'}`);
      await running.engine.ready;
      await running.closed;
      say('the client closed stdin; stopped');
      process.exit(0);
    });
}
