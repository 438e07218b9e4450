import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// The kernel-selection, quantization-tier and parity suites run again at every CPU level this machine
// can force, against the same float64 references: JEPA_CPU=avx2 (an AVX2 laptop's kernels) on an AVX-512
// CPU, and JEPA_CPU_VNNI=0 (no VNNI of any kind: a Skylake-SP at avx512, a Zen 3 or Haswell at avx2)
// on a CPU with VNNI. apps/cli/test/portable-cpu.test.ts runs the addon under qemu's Haswell as well.
const cpuFlags = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
})();
const has = (flag: string) => new RegExp(` ${flag}( |$)`, 'm').test(cpuFlags);
const avx2 = has('avx2') && has('fma') && has('f16c');
const avx512 = avx2 && has('avx512f');
const vnni = has('avx512_vnni') || has('avx_vnni') || has('amx_int8');
const kernelSuites = [
  'packages/native/test/{ops,panel,panel-f32,panel-rows,attention,resample}.test.ts',
  'packages/convert/test/parity.test.ts',
  'packages/graph/test/{predictor-golden,heads-golden,clip-batch}.test.ts',
  'packages/worldmodel/test/{lewm-golden,ac-golden}.test.ts',
  'apps/quantize/test/{tiers,q8-row-tiers,q8-row-models}.test.ts',
];
const atLevel = (name: string, env: Record<string, string>) => ({
  test: { name, root, include: kernelSuites, env, testTimeout: 120_000, hookTimeout: 120_000 },
});
const levels = [
  ...(avx512 ? [atLevel('kernels at JEPA_CPU=avx2', { JEPA_CPU: 'avx2' })] : []),
  ...(vnni ? [atLevel('kernels without VNNI (JEPA_CPU_VNNI=0)', { JEPA_CPU_VNNI: '0' })] : []),
  // where JEPA_CPU=avx2 keeps AVX-VNNI (Sapphire Rapids, Zen 5), plain AVX2 is one more level
  ...(avx512 && has('avx_vnni') ? [atLevel('kernels at JEPA_CPU=avx2 without VNNI', { JEPA_CPU: 'avx2', JEPA_CPU_VNNI: '0' })] : []),
];

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

// The GPU check's dry run (about 10 minutes: packs the carry, configures the build, runs every check
// and a bench from the copy) is left out of @jepa/bench's project (apps/bench/vitest.config.ts) and
// runs in its own, which `pnpm test` still runs: `vitest run --project slow` runs it alone.
const slow = {
  test: { name: 'slow', root, include: ['apps/bench/test/gpu-check-dry-run.test.ts'], testTimeout: 600_000, hookTimeout: 600_000 },
};

// The addon under ASan and UBSan (native/build-sanitize, built by the test): the native tests, the golden
// suites at every level above and an engine fuzz smoke, in a Node with libasan preloaded. Left out of
// @jepa/bench's project; `vitest run --project sanitize` runs it alone.
const sanitize = {
  test: { name: 'sanitize', root, include: ['apps/bench/test/sanitize.test.ts'], testTimeout: 1_500_000, hookTimeout: 900_000 },
};

// Every package and app is a project (named after its package.json). `pnpm test` at the root runs
// them all; a package's own `pnpm test` runs `vitest run --project <its name>`.
export default defineConfig({
  test: {
    projects: [`${root}packages/*`, `${root}apps/*`, slow, sanitize, asOnGpu, ...levels],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
