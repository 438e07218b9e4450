#!/usr/bin/env node
// Builds the addon with cmake-js. JEPA_CUDA=1 adds ggml's CUDA backend (into build-cuda/);
// JEPA_NATIVE=0 builds for a generic x86-64 rather than this machine's CPU; JEPA_CMAKE_ARGS adds
// -D definitions.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cuda = process.env.JEPA_CUDA === '1';
const native = process.env.JEPA_NATIVE !== '0';
const args = [
  require.resolve('cmake-js/bin/cmake-js'),
  'compile',
  '--out', cuda ? 'build-cuda' : 'build',
  '--parallel', String(process.env.JEPA_BUILD_JOBS ?? cpus().length),
  `--CDJEPA_CUDA=${cuda ? 'ON' : 'OFF'}`,
  `--CDJEPA_NATIVE=${native ? 'ON' : 'OFF'}`,
];
if (cuda && process.env.CMAKE_CUDA_ARCHITECTURES) args.push(`--CDCMAKE_CUDA_ARCHITECTURES=${process.env.CMAKE_CUDA_ARCHITECTURES}`);
// Extra -DNAME=VALUE definitions, e.g. where cuBLAS lives when the toolkit lacks it.
for (const def of (process.env.JEPA_CMAKE_ARGS ?? '').split(/\s+/).filter(Boolean)) {
  if (!def.startsWith('-D')) throw new Error(`JEPA_CMAKE_ARGS takes -DNAME=VALUE definitions, not '${def}'`);
  args.push(`--CD${def.slice(2)}`);
}
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
