// Checks an output path before any work is done, so a bad -o fails in a millisecond, not after the corpus.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { outputFormat } from '@jepa/corpus';
import { UserError } from './user-error.js';

/** Refuses an output path that cannot be written (or has no known format), before any work is done. */
export function checkOutputWritable(path: string | undefined): void {
  outputFormat(path);
  if (path === undefined) return;
  const dir = dirname(resolve(path));
  let info: Stats | undefined;
  try {
    info = statSync(path);
  } catch {
    // Not there yet: its folder must be.
  }
  if (info?.isDirectory()) throw new UserError(`-o ${path}: that is a folder; name a file`);
  try {
    accessSync(dir, constants.W_OK);
    if (info) accessSync(path, constants.W_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? `the folder ${dir} does not exist` : `${info ? 'the file' : `the folder ${dir}`} is not writable`;
    throw new UserError(`-o ${path}: ${reason}`);
  }
}
