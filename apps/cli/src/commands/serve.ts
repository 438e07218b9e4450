// `jepa serve`: the HTTP server of @jepa/server, until SIGTERM or SIGINT.
import { InvalidArgumentError, type Command } from 'commander';
import type { JepaServer } from '@jepa/server';
import { parseDuration, parseSize } from '@jepa/engine';
import { defaultThreads } from '@jepa/native';
import { positiveInt } from '../runtime-options.js';
import { checkInputFolder, UserError } from '../user-error.js';
import { servedModel } from '../hub-model.js';
import { say } from '../display-text.js';

interface ServeFlags {
  model?: string[];
  modelsDir?: string;
  host: string;
  port: number;
  maxBatch: number;
  maxWaitMs: number;
  maxQueue: number;
  maxBodyMb: number;
  timeoutMs?: number;
  requestTimeout?: number;
  keepAlive?: number;
  keepAliveModel?: [string, number][];
  maxModelMemory?: number;
  apiKey?: string;
  allowPath?: string[];
  threads?: number;
  index?: string;
}

const count = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected an integer >= 0');
  return n;
};

const port = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
};

const duration = (flag: string) => (v: string) => {
  try {
    return parseDuration(v, flag);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(`${flag}: `, ''));
  }
};

const size = (v: string) => {
  try {
    return parseSize(v, '--max-model-memory');
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace('--max-model-memory: ', ''));
  }
};

/** `ID=DURATION`, gathered over repeats. */
const keepAliveOf = (v: string, all: [string, number][] = []): [string, number][] => {
  const at = v.lastIndexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected MODEL=DURATION, e.g. vitl=10m');
  return [...all, [v.slice(0, at), duration('--keep-alive-model')(v.slice(at + 1))]];
};

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** What close() may take beyond --timeout-ms (the drain, then the compute in progress) before the process stops anyway. */
const EXIT_SLACK_MS = 12_000;

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('serve models over HTTP: embeddings, classify, predict, world models (OpenAI-shaped JSON)')
    .option(
      '-m, --model <gguf...>',
      'models loaded at start-up: files (each known by its file name without .gguf) or hf:ORG/NAME references (pulled first, known by the reference)',
    )
    .option('--models-dir <dir>', 'serve every .gguf in this folder too, each loaded on its first request')
    .option('--keep-alive <duration>', 'unload a model idle this long: 30s, 5m, 0 (after each request), forever (default)', duration('--keep-alive'))
    .option('--keep-alive-model <id=duration>', "one model's keep-alive (repeatable)", keepAliveOf)
    .option('--max-model-memory <size>', 'cap the loaded weights (2GB, 512MiB): a load evicts the least recently used idle model, else 503', size)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0: any free one)', port, 8080)
    .option('--max-batch <n>', 'still images per encoder graph', positiveInt, 8)
    .option('--max-wait-ms <ms>', 'how long a graph waits for more images', count, 5)
    .option('--max-queue <n>', 'items admitted at once; more get 429', positiveInt, 256)
    .option('--max-body-mb <n>', 'largest request body; larger get 413', positiveInt, 64)
    .option(
      '--request-timeout <duration>',
      "a request not done in this gets 504 and its compute stops (a request's timeout may shorten it)",
      duration('--request-timeout'),
    )
    .option('--timeout-ms <ms>', '--request-timeout in ms', positiveInt)
    .option('--api-key <key>', 'require Authorization: Bearer <key> (all routes but /health); default JEPA_API_KEY')
    .option('--allow-path <dirs...>', 'folders whose files {"path": ...} items may name')
    .option(
      '-t, --threads <n>',
      'CPU threads per model (default: JEPA_THREADS, else the CPUs this process may use, a CFS quota rounded up)',
      positiveInt,
    )
    .option('--index <dir>', 'an index (jepa index add) for POST /v1/search and POST /v1/index; the first add makes it when missing')
    .action(async (flags: ServeFlags) => {
      if (!flags.model?.length && !flags.modelsDir) throw new UserError('give --model FILE or --models-dir DIR');
      for (const m of flags.model ?? []) servedModel(m);
      if (flags.modelsDir !== undefined) checkInputFolder(flags.modelsDir, '--models-dir');
      const apiKey = flags.apiKey ?? process.env.JEPA_API_KEY;
      if (flags.requestTimeout !== undefined && flags.timeoutMs !== undefined)
        throw new UserError('give --request-timeout or --timeout-ms, not both');
      const timeoutMs = flags.timeoutMs ?? flags.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
      if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw new UserError('--request-timeout: must be at least 1ms and finite');
      const threads = flags.threads ?? defaultThreads();
      let server: JepaServer;
      try {
        // loaded here, not at the top: every other command starts without fastify
        const { createServer } = await import('@jepa/server');
        server = await createServer({
          models: flags.model ?? [],
          ...(flags.modelsDir ? { modelsDir: flags.modelsDir } : {}),
          host: flags.host,
          port: flags.port,
          maxBatch: flags.maxBatch,
          maxWaitMs: flags.maxWaitMs,
          maxQueue: flags.maxQueue,
          maxBodyMb: flags.maxBodyMb,
          timeoutMs,
          ...(flags.keepAlive !== undefined ? { keepAliveMs: flags.keepAlive } : {}),
          ...(flags.keepAliveModel ? { keepAliveById: new Map(flags.keepAliveModel) } : {}),
          ...(flags.maxModelMemory !== undefined ? { maxModelBytes: flags.maxModelMemory } : {}),
          allowPaths: flags.allowPath ?? [],
          ...(apiKey ? { apiKey } : {}),
          threads,
          ...(flags.index ? { index: flags.index } : {}),
          log: say,
        });
      } catch (err) {
        throw new UserError(err instanceof Error ? err.message : String(err));
      }
      say(
        `listening on ${server.url}${apiKey ? ' (API key required)' : ''}; ${threads} CPU thread${threads === 1 ? '' : 's'} per model${flags.model?.length ? '; loading models' : ''}`,
      );
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          say(`${signal} again: exiting now`);
          process.exit(130);
        }
        stopping = true;
        say(`${signal}: finishing the requests in flight, then exiting`);
        setTimeout(() => {
          say('shutdown took too long; exiting');
          process.exit(1);
        }, timeoutMs + EXIT_SLACK_MS).unref();
        server.close().then(
          () => {
            say('stopped');
            process.exit(0);
          },
          (err: unknown) => {
            say(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      try {
        await server.ready;
      } catch (err) {
        await server.close();
        throw new UserError(`cannot load the models: ${err instanceof Error ? err.message : String(err)}`);
      }
      say(`ready: ${server.url}`);
    });
}
