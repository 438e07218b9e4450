#!/usr/bin/env node
// Builds the addon from source with cmake-js, in one of four modes (each in its own folder):
//   default        the portable build (build/): ggml's CPU backend for every x86 level, chosen at load;
//   JEPA_NATIVE=1  ggml for this machine's CPU only, -march=native, linked in (build-native/);
//   JEPA_CUDA=1    ggml's CUDA backend as well, CPU part -march=native unless JEPA_NATIVE=0 (build-cuda/);
//   JEPA_SANITIZE=address,undefined  the -march=native build with the addon's own code under those
//                  sanitizers (build-sanitize/), loaded only through JEPA_ADDON (docs/hardening.md).
// JEPA_CMAKE_ARGS adds -DNAME=VALUE definitions; JEPA_BUILD_JOBS the parallel jobs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const sanitize = process.env.JEPA_SANITIZE ?? '';
if (sanitize && !/^[a-z]+(,[a-z]+)*$/.test(sanitize)) throw new Error(`JEPA_SANITIZE takes sanitizer names (address,undefined), not '${sanitize}'`);
const cuda = process.env.JEPA_CUDA === '1';
if (cuda && sanitize) throw new Error('JEPA_SANITIZE builds the CPU addon only; leave JEPA_CUDA unset');
const native = cuda ? process.env.JEPA_NATIVE !== '0' : sanitize !== '' || process.env.JEPA_NATIVE === '1';
const out = sanitize ? 'build-sanitize' : cuda ? 'build-cuda' : native ? 'build-native' : 'build';
// In the repository ggml sits beside native/; an installed @jepa/addon fetches it into its own folder.
const ggml = [join(here, '../ggml'), join(here, 'ggml')].find((d) => existsSync(join(d, '.jepa-pin.json')));
if (!ggml) throw new Error('the pinned ggml is not in place: run `node fetch-ggml.mjs` first');
const options = [
  '--out', out,
  `--CDJEPA_CUDA=${cuda ? 'ON' : 'OFF'}`,
  `--CDJEPA_NATIVE=${native ? 'ON' : 'OFF'}`,
  `--CDJEPA_GGML_DIR=${ggml}`,
  `--CDJEPA_SANITIZE=${sanitize}`,
];
if (cuda && process.env.CMAKE_CUDA_ARCHITECTURES) options.push(`--CDCMAKE_CUDA_ARCHITECTURES=${process.env.CMAKE_CUDA_ARCHITECTURES}`);
// Extra -DNAME=VALUE definitions, e.g. where cuBLAS lives when the toolkit lacks it.
for (const def of (process.env.JEPA_CMAKE_ARGS ?? '').split(/\s+/).filter(Boolean)) {
  if (!def.startsWith('-D')) throw new Error(`JEPA_CMAKE_ARGS takes -DNAME=VALUE definitions, not '${def}'`);
  options.push(`--CD${def.slice(2)}`);
}
// configure every time (cheap when nothing changed), so a changed mode or definition always takes effect
const cmakeJs = require.resolve('cmake-js/bin/cmake-js');
const jobs = String(process.env.JEPA_BUILD_JOBS ?? cpus().length);
for (const step of [['configure', ...options], ['build', '--out', out, '--parallel', jobs]]) {
  const result = spawnSync(process.execPath, [cmakeJs, ...step], { stdio: 'inherit', cwd: here });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
