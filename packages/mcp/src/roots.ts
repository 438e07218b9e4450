// The folders a path may lie in: --root at start, replaced by the client's MCP roots (file:// URIs)
// whenever it sends them. The check itself is @jepa/server's PathPolicy (the one `jepa serve
// --allow-path` uses): NUL bytes, relative paths and `..` refused before the file system is asked, a
// path lexically outside every root refused without looking at it, then the real path (every symlink
// resolved, a parent folder's too) must be a root itself or lie below root + separator, and be a
// regular file.
import { fileURLToPath } from 'node:url';
import { EngineError, PathPolicy } from '@jepa/engine';

/** A root URI as a path: file:// only; anything else is null. */
export function rootPath(uri: string): string | null {
  if (!/^file:\/\//i.test(uri)) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

/** The roots that exist and are folders (each as PathPolicy keeps it), and why the others are not used. */
export async function usableRoots(paths: readonly string[]): Promise<{ roots: string[]; refused: string[] }> {
  const roots: string[] = [];
  const refused: string[] = [];
  for (const p of paths) {
    try {
      await PathPolicy.create([p]);
      roots.push(p);
    } catch (err) {
      refused.push(err instanceof Error ? err.message.replace('--allow-path', 'root') : String(err));
    }
  }
  return { roots, refused };
}

/** The server's messages name its flag; here the roots come from --root or the client. */
export function asRootError(err: unknown): unknown {
  if (!(err instanceof EngineError)) return err;
  const message = err.message
    .replace('start the server with --allow-path DIR', 'start jepa mcp with --root DIR, or send roots from the client')
    .replace('(--allow-path)', "(--root, or the client's roots)");
  return message === err.message ? err : new EngineError(err.code, message, { kind: err.kind, param: err.param, retryAfter: err.retryAfter });
}

export class Roots {
  #policy: PathPolicy;
  #source: 'flags' | 'client';
  readonly #listeners: ((policy: PathPolicy) => void)[] = [];

  private constructor(policy: PathPolicy) {
    this.#policy = policy;
    this.#source = 'flags';
  }

  /** The command line's roots: each must exist and be a folder. */
  static async create(roots: readonly string[]): Promise<Roots> {
    return new Roots(await PathPolicy.create(roots));
  }

  /** Hears every change of the roots in force. */
  onChange(listener: (policy: PathPolicy) => void): void {
    this.#listeners.push(listener);
  }

  get policy(): PathPolicy {
    return this.#policy;
  }

  get source(): 'flags' | 'client' {
    return this.#source;
  }

  /** The real paths of the roots in force. */
  get paths(): readonly string[] {
    return this.#policy.realRoots;
  }

  /**
   * The client's roots replace the ones in force, when at least one of them is a usable folder (as the
   * reference filesystem server does: a list with none leaves the roots as they were). Returns what was
   * refused, for the log.
   */
  async replace(uris: readonly string[]): Promise<{ applied: boolean; refused: string[] }> {
    const paths: string[] = [];
    const refused: string[] = [];
    for (const uri of uris) {
      const p = rootPath(uri);
      if (p === null) refused.push(`${uri.slice(0, 200)}: not a file:// URI`);
      else paths.push(p);
    }
    const usable = await usableRoots(paths);
    refused.push(...usable.refused);
    if (usable.roots.length === 0) return { applied: false, refused };
    this.#policy = await PathPolicy.create(usable.roots);
    this.#source = 'client';
    for (const listener of this.#listeners) listener(this.#policy);
    return { applied: true, refused };
  }
}
