// The variants of `jepa-bench cpu-levels`: the engine's own kernels at every level this CPU runs, best
// first, each again without VNNI (JEPA_CPU_VNNI=0: a Skylake-SP at avx512, a Zen 3 or Haswell at avx2)
// where this CPU has VNNI, then ggml's own matmuls (JEPA_PANEL=0) at the lowest, what an AVX2 laptop
// gets without them.
import { buildInfo } from '@jepa/native';
import type { Variant } from './variants-bench.js';

export function cpuLevelVariants(): Variant[] {
  const info = buildInfo();
  const best = info.cpuLevel;
  const levels = best === 'avx512' ? ['avx512', 'avx2'] : best === 'avx2' ? ['avx2'] : [];
  if (levels.length === 0) throw new Error("this CPU has no AVX2: the engine runs ggml's own kernels only");
  const lowest = levels[levels.length - 1]!;
  // this process's own kernels: VNNI of some kind where any 8-bit kernel but plain AVX2's runs
  const vnni = (info.panelKernel !== null && info.panelKernel !== 'avx2') || info.panelKernelsRows.some((k) => k !== 'avx2');
  return [
    ...levels.flatMap((l) => [
      { label: `JEPA_CPU=${l}`, env: { JEPA_CPU: l } },
      ...(vnni ? [{ label: `JEPA_CPU=${l} JEPA_CPU_VNNI=0`, env: { JEPA_CPU: l, JEPA_CPU_VNNI: '0' } }] : []),
    ]),
    { label: `JEPA_CPU=${lowest} JEPA_PANEL=0`, env: { JEPA_CPU: lowest, JEPA_PANEL: '0' } },
  ];
}
