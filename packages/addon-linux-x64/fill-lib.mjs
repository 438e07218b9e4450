#!/usr/bin/env node
// Fills lib/ from the repository's portable source build (native/build/Release) before `pnpm pack`:
// the addon, ggml's two shared libraries under the names the addon asks for, and every CPU variant.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const build = join(here, '../../native/build');
const release = join(build, 'Release');
const lib = join(here, 'lib');

function fail(message) {
  process.stderr.write(`fill-lib: ${message}\n`);
  process.exit(1);
}

if (!existsSync(join(release, 'jepa_native.node'))) fail(`${release}/jepa_native.node is missing: run \`pnpm build\` first`);
const cache = readFileSync(join(build, 'CMakeCache.txt'), 'utf8');
if (!/^GGML_BACKEND_DL:BOOL=ON$/m.test(cache)) fail(`${build} is not the portable build (GGML_BACKEND_DL is off): rebuild without JEPA_NATIVE`);

// The addon's own DT_NEEDED names (libggml.so.0, ...) are the files to ship: copied, not linked.
const needed = spawnSync('readelf', ['-d', join(release, 'jepa_native.node')], { encoding: 'utf8' })
  .stdout.split('\n')
  .map((l) => /\(NEEDED\).*\[(libggml[^\]]*)\]/.exec(l)?.[1])
  .filter(Boolean);
if (needed.length === 0) fail('readelf found no libggml dependency in the addon (is binutils installed?)');
// GCC's OpenMP runtime is not on every machine (slim container images lack it): it travels too.
const runtime = spawnSync('ldd', [join(release, 'jepa_native.node')], { encoding: 'utf8' })
  .stdout.split('\n')
  .map((l) => /^\s*(libgomp\.so\S*) => (\S+)/.exec(l))
  .filter(Boolean)
  .map((m) => ({ name: m[1], path: m[2] }));
const variants = readdirSync(release).filter((f) => /^libggml-cpu-.*\.so$/.test(f));
if (variants.length === 0) fail(`no libggml-cpu-*.so in ${release}`);

rmSync(lib, { recursive: true, force: true });
mkdirSync(lib);
let bytes = 0;
for (const name of ['jepa_native.node', ...needed, ...variants]) {
  const from = realpathSync(join(release, name));
  copyFileSync(from, join(lib, name));
  bytes += statSync(from).size;
}
for (const { name, path } of runtime) {
  copyFileSync(realpathSync(path), join(lib, name));
  bytes += statSync(path).size;
}
process.stderr.write(
  `fill-lib: ${1 + needed.length + variants.length + runtime.length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB (${variants.length} CPU variants)\n`,
);
