// Which files a `{path}` item may name: only regular files under an --allow-path root, judged on
// the real path (symlinks resolved), so neither `..` nor a link leads out of a root.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { badField, forbidden } from '../errors.js';

const MAX_PATH = 4096;

/** True when `path` is `root` itself or lies below it (so /allowed_evil is not in /allowed). */
export function isWithin(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

const refused = (field: string) => forbidden(field, 'not under an allowed path (--allow-path)', 'path_not_allowed');

export class PathPolicy {
  private constructor(
    /** The roots as given (resolved) and as real paths: a lexical check needs the first, the final one the second. */
    readonly roots: readonly string[],
    readonly realRoots: readonly string[],
  ) {}

  static async create(roots: readonly string[]): Promise<PathPolicy> {
    const given: string[] = [];
    const real: string[] = [];
    for (const root of roots) {
      const abs = resolve(root);
      let r: string;
      try {
        r = await realpath(abs);
      } catch (err) {
        throw new Error(`--allow-path ${root}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message}`);
      }
      if (!(await stat(r)).isDirectory()) throw new Error(`--allow-path ${root}: not a folder`);
      given.push(abs);
      real.push(r);
    }
    return new PathPolicy(given, real);
  }

  get enabled(): boolean {
    return this.realRoots.length > 0;
  }

  /** The real path of an allowed regular file, or a refusal naming the field. */
  async check(field: string, value: unknown): Promise<string> {
    if (!this.enabled) throw forbidden(field, 'paths are off; start the server with --allow-path DIR', 'paths_disabled');
    if (typeof value !== 'string' || value.length === 0) throw badField(field, 'must be a non-empty string');
    if (value.length > MAX_PATH) throw badField(field, `longer than ${MAX_PATH} characters`);
    if (value.includes('\0')) throw badField(field, 'contains a NUL byte');
    if (!isAbsolute(value)) throw badField(field, 'must be an absolute path');
    if (value.split(/[\\/]/).includes('..')) throw badField(field, "must not contain '..'");
    const lexical = resolve(value);
    // Refused before the file system is asked, so a path outside every root learns nothing about it.
    if (!this.roots.some((r) => isWithin(r, lexical)) && !this.realRoots.some((r) => isWithin(r, lexical))) throw refused(field);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw badField(field, 'no such file', 'file_not_found');
      if (code === 'EACCES' || code === 'EPERM') throw refused(field);
      if (code === 'ELOOP') throw badField(field, 'too many symbolic links', 'invalid_path');
      throw badField(field, `cannot be resolved (${code ?? 'error'})`, 'invalid_path');
    }
    if (!this.realRoots.some((r) => isWithin(r, real))) throw refused(field);
    const info = await stat(real);
    if (!info.isFile()) throw badField(field, 'not a regular file', 'invalid_path');
    return real;
  }
}
