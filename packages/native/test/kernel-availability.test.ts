// The kernel suites skip where buildInfo() names no kernel (panel.test.ts, panel-rows.test.ts,
// panel-f32.test.ts, attention.test.ts; apps/quantize's tiers): that must be because this CPU cannot
// run one, never because a build lost its kernels.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildInfo } from '../src/index.js';

const cpuinfo = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
})();
const has = (flag: string) => new RegExp(` ${flag}( |$)`, 'm').test(cpuinfo);
const avx2 = has('avx2') && has('fma') && has('f16c');

describe('why a kernel suite skips', () => {
  it('the engine runs its own kernels wherever the CPU has AVX2, FMA and F16C', () => {
    if (cpuinfo === '') return; // no /proc/cpuinfo to judge by
    expect(buildInfo().cpuLevel === 'scalar', `cpuLevel ${buildInfo().cpuLevel} on a CPU ${avx2 ? 'with' : 'without'} AVX2`).toBe(!avx2);
  });

  it('every kernel is there at an AVX2 or AVX-512 level, none at the scalar one', () => {
    const b = buildInfo();
    const kernels = {
      panelKernel: b.panelKernel,
      panelKernelRows: b.panelKernelRows,
      panelKernelF32: b.panelKernelF32,
      flashAttnCpu: b.flashAttnCpu,
    };
    for (const [name, kernel] of Object.entries(kernels)) expect(kernel === null, `${name} at cpuLevel ${b.cpuLevel}`).toBe(b.cpuLevel === 'scalar');
  });

  it('one q8_row kernel only where the fastest is plain AVX2 (no VNNI or AMX to compare against)', () => {
    const rows = buildInfo().panelKernelsRows;
    if (buildInfo().cpuLevel === 'scalar') return expect(rows).toEqual([]);
    expect(rows.at(-1)).toBe('avx2');
    expect(rows[0]).toBe(buildInfo().panelKernelRows);
  });
});
