import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// On an AVX-512 machine the engine's own CPU kernels also have an AVX2 + FMA level (an AVX2 laptop's):
// these suites run again with JEPA_CPU=avx2, against the same float64 references.
const cpuFlags = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
})();
const avx2Level = / avx512f /.test(cpuFlags) && / avx2 /.test(cpuFlags) && / fma /.test(cpuFlags) && / f16c /.test(cpuFlags);
const atAvx2 = {
  test: {
    name: 'kernels at JEPA_CPU=avx2',
    root,
    include: [
      'packages/native/test/{ops,panel,panel-f32,panel-rows,attention,resample}.test.ts',
      'packages/convert/test/parity.test.ts',
      'packages/graph/test/{predictor-golden,heads-golden,clip-batch}.test.ts',
      'packages/worldmodel/test/{lewm-golden,ac-golden}.test.ts',
      'apps/quantize/test/{tiers,q8-row-tiers}.test.ts',
    ],
    env: { JEPA_CPU: 'avx2' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
};

// The GPU's graphs (ggml's generic ops, no CPU-only nodes) against the same references, on the CPU.
const asOnGpu = {
  test: {
    name: 'graphs as on a GPU (JEPA_CPU_NODES=0)',
    root,
    include: [
      'packages/convert/test/parity.test.ts',
      'packages/graph/test/{predictor-golden,heads-golden,clip-batch}.test.ts',
      'packages/worldmodel/test/{lewm-golden,ac-golden}.test.ts',
    ],
    env: { JEPA_CPU_NODES: '0' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
};

// Every package and app is a project (named after its package.json). `pnpm test` at the root runs
// them all; a package's own `pnpm test` runs `vitest run --project <its name>`.
export default defineConfig({
  test: {
    projects: [`${root}packages/*`, `${root}apps/*`, asOnGpu, ...(avx2Level ? [atAvx2] : [])],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
