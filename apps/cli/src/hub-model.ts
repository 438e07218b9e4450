// `-m hf:ORG/NAME[@REVISION][:TYPE]` for every command: @jepa/hub's resolver with the CLI's progress
// (bytes, rate and time left per file, then the conversion) on a TTY stderr; a path is left as it is.
// @jepa/hub (and the Hub client under it) loads only when a reference is given: a run on a file pays nothing.
import type { HubReference, PulledModel, ResolveOptions } from '@jepa/hub';
import { isHubReference, parseHubReference } from '@jepa/hub/reference';
import { ByteProgress } from './byte-progress.js';
import { say } from './display-text.js';
import { Progress } from './progress.js';
import { checkInputFile } from './user-error.js';

function progressOptions(quiet: boolean): { options: ResolveOptions; finish: () => void } {
  const tty = !quiet && Boolean(process.stderr.isTTY);
  const bytes = new ByteProgress(tty);
  let convert: Progress | undefined;
  const options: ResolveOptions = {
    onBytes: (p) => bytes.update(p.file, p.done, p.total),
    onConvert: (p) => {
      if (!tty) return;
      bytes.finish();
      convert ??= new Progress(p.count, 'convert');
      convert.tick();
    },
    onNote: (message) => {
      if (!tty) return;
      bytes.finish();
      say(message);
    },
  };
  const finish = () => {
    bytes.finish();
    convert?.finish();
  };
  return { options, finish };
}

/** The local GGUF for `-m`: an `hf:` reference pulled and converted (or found in the caches), else `model` itself. */
export async function modelPath(model: string, quiet = false): Promise<string> {
  if (!isHubReference(model)) return model;
  const { resolveModel } = await import('@jepa/hub');
  const { options, finish } = progressOptions(quiet);
  try {
    return await resolveModel(model, options);
  } finally {
    finish();
  }
}

/** A model flag as a file the command may read: an `hf:` reference pulled and converted first, then checked as any path is. */
export async function localModel(model: string, flag = '-m'): Promise<string> {
  const path = await modelPath(model);
  checkInputFile(path, flag);
  return path;
}

/**
 * A model for a command that serves it (serve, mcp): an `hf:` reference checked and passed on as it is
 * (the engine pulls it, and serves it under that name), a file checked as any path is.
 */
export function servedModel(model: string, flag = '-m'): string {
  if (isHubReference(model)) parseHubReference(model);
  else checkInputFile(model, flag);
  return model;
}

/** `jepa pull`: the reference pulled and converted, with progress unless `quiet`. */
export async function pullWithProgress(ref: HubReference, quiet: boolean): Promise<PulledModel> {
  const { pullModel } = await import('@jepa/hub');
  const { options, finish } = progressOptions(quiet);
  try {
    return await pullModel(ref, options);
  } finally {
    finish();
  }
}
