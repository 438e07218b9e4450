// The variants of `jepa-bench cpu-levels`: the engine's own kernels at every level this CPU runs,
// best first, then ggml's own matmuls (JEPA_PANEL=0) at the lowest, what an AVX2 laptop gets without them.
import { buildInfo } from '@jepa/native';
import type { Variant } from './variants-bench.js';

export function cpuLevelVariants(): Variant[] {
  const best = buildInfo().cpuLevel;
  const levels = best === 'avx512' ? ['avx512', 'avx2'] : best === 'avx2' ? ['avx2'] : [];
  if (levels.length === 0) throw new Error("this CPU has no AVX2: the engine runs ggml's own kernels only");
  const lowest = levels[levels.length - 1]!;
  return [
    ...levels.map((l) => ({ label: `JEPA_CPU=${l}`, env: { JEPA_CPU: l } })),
    { label: `JEPA_CPU=${lowest} JEPA_PANEL=0`, env: { JEPA_CPU: lowest, JEPA_PANEL: '0' } },
  ];
}
