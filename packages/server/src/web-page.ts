// The files of the page at / (built by `pnpm --filter @jepa/server build` into dist/web/): read
// once at start, served by the routes with their content types. No directory listing, no other path.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebFile {
  type: string;
  bytes: Buffer;
}

const TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export class WebPage {
  readonly #files = new Map<string, WebFile>();

  constructor(readonly dir: string) {
    for (const [name, type] of Object.entries(TYPES)) {
      const bytes = readFileSync(join(dir, name));
      this.#files.set(name === 'index.html' ? '/' : `/web/${name}`, { type, bytes });
    }
  }

  has(path: string): boolean {
    return this.#files.has(path);
  }

  get(path: string): WebFile | undefined {
    return this.#files.get(path);
  }
}

/**
 * The built page: `dir` when given, else dist/web beside this module (the package as installed,
 * or ../dist/web when running from src in the tests); null where it has not been built.
 */
export function loadWebPage(dir?: string): WebPage | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = dir !== undefined ? [dir] : [join(here, 'web'), join(here, '../dist/web')];
  for (const d of candidates) if (Object.keys(TYPES).every((name) => existsSync(join(d, name)))) return new WebPage(d);
  return null;
}
