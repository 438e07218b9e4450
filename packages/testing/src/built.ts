// A test whose prerequisite was not built fails and says how to build it; it never skips green.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { REPO_ROOT } from './paths.js';

/** `path` when it exists; else throws "build first: pnpm build (<path> is missing): <what>". */
export function requireBuilt(path: string, what: string): string {
  if (!existsSync(path)) throw new Error(`build first: pnpm build (${relative(REPO_ROOT, path)} is missing): ${what}`);
  return path;
}
