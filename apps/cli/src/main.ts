#!/usr/bin/env node
import { EXIT_CODE, errorKind, isUserFacing } from '@jepa/errors';
import { Command, CommanderError } from 'commander';
import { convertCommand } from './commands/convert.js';
import { devicesCommand } from './commands/devices.js';
import { embedCommand } from './commands/embed.js';
import { infoCommand } from './commands/info.js';
import { preprocessCommand } from './commands/preprocess.js';
import { classifyCommand } from './commands/classify.js';
import { predictCommand } from './commands/predict.js';
import { worldmodelCommand } from './commands/worldmodel.js';
import { serveCommand } from './commands/serve.js';
import { mcpCommand } from './commands/mcp.js';
import { queueCommand } from './commands/queue.js';
import { workerCommand } from './commands/worker.js';
import { featuresCommand } from './commands/features.js';
import { compareCommand } from './commands/compare.js';
import { indexCommand } from './commands/index.js';
import { searchCommand } from './commands/search.js';
import { pullCommand } from './commands/pull.js';
import { modelsCommand } from './commands/models.js';
import { displayText } from './display-text.js';
import { fsErrorMessage, isFsError } from './user-error.js';

// Commander's own refusals (unknown option, bad value, missing argument) come back to the one
// printer below instead of being written and exited on the spot: set before the commands are
// added, so that every subcommand inherits it.
const program = new Command('jepa')
  .description('JEPA vision models on ggml: embeddings, classification, prediction, world models')
  .option('--verbose', 'print error details')
  .exitOverride()
  .configureOutput({ outputError: () => {} });

infoCommand(program);
devicesCommand(program);
embedCommand(program);
preprocessCommand(program);
convertCommand(program);
classifyCommand(program);
predictCommand(program);
worldmodelCommand(program);
serveCommand(program);
mcpCommand(program);
queueCommand(program);
workerCommand(program);
featuresCommand(program);
compareCommand(program);
indexCommand(program);
searchCommand(program);
pullCommand(program);
modelsCommand(program);

/** Commander's "error: option '-t, --threads <n>' argument '0' is invalid. expected …" as one `jepa:` sentence. */
function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/ is invalid\. /, ' is invalid: ')
    .replace(/\n\(Did you mean (.*)\)$/s, ' (did you mean $1)');
}

/** The exit code and the one line (never raw control characters) of whatever stopped the command. */
function describe(err: unknown): { code: number; message: string | null; internal: boolean } {
  if (err instanceof CommanderError) {
    // help and --version exit 0; `jepa` or `jepa queue` alone has printed its help to stderr
    if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version')
      return { code: err.exitCode, message: null, internal: false };
    if (err.code === 'commander.help') return { code: 2, message: null, internal: false };
    return { code: 2, message: commanderMessage(err.message), internal: false };
  }
  if (isFsError(err)) return { code: 2, message: fsErrorMessage(err), internal: false };
  const message = err instanceof Error ? err.message : String(err);
  const exitCode = (err as { exitCode?: unknown } | null)?.exitCode;
  const userFacing = isUserFacing(err);
  // an error's own exitCode (3 where some inputs failed), else its kind's: 2 for the user's to fix, 1 for a bug
  return { code: typeof exitCode === 'number' ? exitCode : EXIT_CODE[errorKind(err)], message, internal: !userFacing };
}

/** The one error printer: every refusal, from any package, is one inert `jepa:` line and an exit code. */
function fail(err: unknown): never {
  const verbose = program.opts<{ verbose?: boolean }>().verbose;
  const { code, message, internal } = describe(err);
  if (message !== null) process.stderr.write(`jepa: ${displayText(message)}\n`);
  if (verbose && err instanceof Error && err.stack) {
    for (const line of err.stack.split('\n')) process.stderr.write(`${displayText(line)}\n`);
  } else if (internal) process.stderr.write('jepa: (an internal error; --verbose shows where)\n');
  process.exit(code);
}

// an error thrown from an event handler (a server, a worker) reaches the same printer, not Node's raw one
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
program.parseAsync().catch(fail);
