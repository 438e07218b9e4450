// Expands the user's input arguments: files, folders (their images, sorted), `@list.txt` files
// (one path per line) and simple globs (`*`, `?` in the last path segment).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fsReason, isFsError, UserError } from './user-error.js';

export const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.jpe', '.jfif', '.png', '.webp', '.avif', '.tif', '.tiff', '.gif']);

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** A name that cannot be stat'ed (a dangling link) is kept, to be reported as the input that failed. */
function isFileOrBroken(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}

function listFolder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir)
    .filter((name) => keep(name) && isFileOrBroken(join(dir, name)))
    .sort()
    .map((name) => join(dir, name));
}

/** Why a list file or folder could not be read, in words. */
const why = (err: unknown) => (isFsError(err) ? fsReason(err) : err instanceof Error ? err.message : String(err));

export function expandInputs(args: readonly string[], isImage = true): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('@')) {
      const listFile = arg.slice(1);
      let text: string;
      try {
        text = readFileSync(listFile, 'utf8');
      } catch (err) {
        throw new UserError(`cannot read the list file ${listFile}: ${why(err)}`);
      }
      const base = dirname(resolve(listFile));
      for (const line of text.split(/\r?\n/)) {
        const p = line.trim();
        if (p && !p.startsWith('#')) out.push(resolve(base, p));
      }
      continue;
    }
    if (/[*?]/.test(basename(arg))) {
      const dir = dirname(arg);
      const re = globToRegExp(basename(arg));
      let matches: string[] = [];
      try {
        matches = listFolder(dir, (name) => re.test(name));
      } catch (err) {
        throw new UserError(`cannot list ${dir} for the pattern ${arg}: ${why(err)}`);
      }
      if (matches.length === 0) throw new UserError(`no file matches ${arg}`);
      out.push(...matches);
      continue;
    }
    let isDir = false;
    try {
      isDir = statSync(arg).isDirectory();
    } catch {
      out.push(arg); // reported per item, so one missing file does not stop the rest
      continue;
    }
    if (isDir) {
      let files: string[];
      try {
        files = listFolder(arg, (name) => !isImage || IMAGE_EXTENSIONS.has(extname(name).toLowerCase()));
      } catch (err) {
        throw new UserError(`cannot list the folder ${arg}: ${why(err)}`);
      }
      if (files.length === 0) throw new UserError(`no images in the folder ${arg}`);
      out.push(...files);
    } else {
      out.push(arg);
    }
  }
  return out;
}
