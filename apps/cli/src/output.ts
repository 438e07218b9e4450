// Checks an output path before any work is done, so a bad -o fails in a millisecond, not after the corpus.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { outputFormat } from '@jepa/corpus';
import { UserError } from './user-error.js';

/** Refuses an output path that cannot be written (or has no known format), before any work is done. */
export function checkOutputWritable(path: string | undefined): void {
  if (path !== undefined) checkWritable(path, '-o');
  outputFormat(path);
}

/** Refuses an output that is not a .npy path, or cannot be written; `flag` names it in the message. */
export function checkNpyOutput(path: string | undefined, flag: string): void {
  if (path === undefined) return;
  if (extname(path).toLowerCase() !== '.npy') throw new UserError(`${flag} ${path}: write a .npy file`);
  checkWritable(path, flag);
}

/** Refuses a file path that is a folder, whose folder is missing, or that cannot be written. */
export function checkWritable(path: string, flag: string): void {
  const dir = dirname(resolve(path));
  let info: Stats | undefined;
  try {
    info = statSync(path);
  } catch {
    // Not there yet: its folder must be.
  }
  if (info?.isDirectory()) throw new UserError(`${flag} ${path}: that is a folder; name a file`);
  try {
    accessSync(dir, constants.W_OK);
    if (info) accessSync(path, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? `the folder ${dir} does not exist`
        : code === 'ENOTDIR'
          ? `${dir} is not a folder`
          : `${info ? 'the file' : `the folder ${dir}`} is not writable`;
    throw new UserError(`${flag} ${path}: ${reason}`);
  }
}

/** Refuses an output folder that is a file or cannot be written; a missing one is made when needed. */
export function checkOutputFolder(path: string, flag: string): void {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    return;
  }
  if (!info.isDirectory()) throw new UserError(`${flag} ${path}: that is a file; name a folder`);
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch {
    throw new UserError(`${flag} ${path}: the folder is not writable`);
  }
}
