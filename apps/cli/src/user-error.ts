import { accessSync, constants, statSync } from 'node:fs';
import { JepaError, isUserFacing } from '@jepa/errors';
import { GgufError } from '@jepa/gguf';
import { WorldModelError } from '@jepa/worldmodel';

/** A problem with what the user asked for: printed as `jepa: <message>`, never with a stack. */
export class UserError extends JepaError {
  constructor(
    message: string,
    /** 2, or 3 where some of the inputs failed. */
    readonly exitCode = 2,
  ) {
    super('CLI_INPUT', message, { kind: 'input' });
  }
}

/**
 * A refusal of a user-given file's contents that does not name it ("not a GGUF file: …") gets
 * `label: ` in front; other refusals (a device, a budget) are not about the file.
 */
function nameTheFile(err: unknown, label: string, path: string): unknown {
  if (isUserFacing(err) && (err instanceof GgufError || err instanceof WorldModelError) && !err.message.includes(path))
    err.message = `${label}: ${err.message}`;
  return err;
}

/** Runs `load` on the user's file `path`; its refusal names the file (`-m PATH: …`). */
export function aboutFile<T>(label: string, path: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    throw nameTheFile(err, label, path);
  }
}

/** aboutFile for an async load. */
export async function aboutFileAsync<T>(label: string, path: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw nameTheFile(err, label, path);
  }
}

/** What a Node file-system error says about the path, in words ("EISDIR: illegal operation on a directory, read" is not for users). */
const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'that is a folder; name a file',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file grew past the size this system allows',
  EIO: 'the disk reported an I/O error',
  ENXIO: 'no such device',
  ENODEV: 'no such device',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
};

/** A Node file-system error (from fs, with the syscall that failed) of a kind the user can fix. */
export function isFsError(err: unknown): err is NodeJS.ErrnoException {
  if (!(err instanceof Error)) return false;
  const e = err as NodeJS.ErrnoException;
  return typeof e.code === 'string' && typeof e.syscall === 'string' && e.code in FS_REASONS;
}

/** The reason in words: "no such file or folder", "permission denied". */
export function fsReason(err: NodeJS.ErrnoException): string {
  return FS_REASONS[err.code ?? ''] ?? err.code ?? 'cannot be used';
}

/** `PATH: reason` (or the reason alone, where the error names no path), for one `jepa:` line. */
export function fsErrorMessage(err: NodeJS.ErrnoException, path = err.path): string {
  return path === undefined ? `${fsReason(err)} (${err.syscall ?? 'fs'})` : `${path}: ${fsReason(err)}`;
}

/** `--flag PATH` where the path came with a flag, else PATH. */
const named = (path: string, flag?: string) => (flag ? `${flag} ${path}` : path);

/**
 * Refuses a user-given input path that is not a readable file, naming it and the flag it came with:
 * before any model is loaded, so `jepa info /tmp` says "/tmp: that is a folder" and not EISDIR.
 */
export function checkInputFile(path: string, flag?: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
    if (!isDir) accessSync(path, constants.R_OK);
  } catch (err) {
    throw isFsError(err) ? new UserError(fsErrorMessage(err, named(path, flag))) : err;
  }
  if (isDir) throw new UserError(`${named(path, flag)}: that is a folder; name a file`);
}

/** Refuses a user-given folder path that is missing, a file, or unreadable. */
export function checkInputFolder(path: string, flag?: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
    if (isDir) accessSync(path, constants.R_OK | constants.X_OK);
  } catch (err) {
    throw isFsError(err) ? new UserError(fsErrorMessage(err, named(path, flag))) : err;
  }
  if (!isDir) throw new UserError(`${named(path, flag)}: that is a file; name a folder`);
}
