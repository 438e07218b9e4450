// Builds the page at / of `jepa serve` into dist/web/: web/app.ts bundled by esbuild, with
// index.html and app.css copied beside it. Run by the package's build script, after tsc.
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const out = `${pkg}dist/web`;
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${pkg}web/app.ts`],
  outfile: `${out}/app.js`,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const name of ['index.html', 'app.css']) copyFileSync(`${pkg}web/${name}`, `${out}/${name}`);
