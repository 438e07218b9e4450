#!/usr/bin/env node
import { Command } from 'commander';
import { convertCommand } from './commands/convert.js';
import { devicesCommand } from './commands/devices.js';
import { embedCommand } from './commands/embed.js';
import { infoCommand } from './commands/info.js';
import { preprocessCommand } from './commands/preprocess.js';
import { classifyCommand } from './commands/classify.js';
import { predictCommand } from './commands/predict.js';
import { worldmodelCommand } from './commands/worldmodel.js';
import { serveCommand } from './commands/serve.js';
import { queueCommand } from './commands/queue.js';
import { workerCommand } from './commands/worker.js';
import { isUserFacing } from './user-error.js';

const program = new Command('jepa')
  .description('JEPA vision models on ggml: embeddings, classification, prediction, world models')
  .option('--verbose', 'print error details');

infoCommand(program);
devicesCommand(program);
embedCommand(program);
preprocessCommand(program);
convertCommand(program);
classifyCommand(program);
predictCommand(program);
worldmodelCommand(program);
serveCommand(program);
queueCommand(program);
workerCommand(program);

program.parseAsync().catch((err: unknown) => {
  const verbose = program.opts<{ verbose?: boolean }>().verbose;
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`jepa: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  else if (!isUserFacing(err)) process.stderr.write('jepa: (an internal error; --verbose shows where)\n');
  process.exit(typeof (err as { exitCode?: unknown }).exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1);
});
