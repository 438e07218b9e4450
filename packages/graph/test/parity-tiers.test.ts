// The file-type tiers of the parity POLICY: every tier has a row for each backend and family class, and
// q8_row files (general.file_type FILE_TYPE_Q8_ROW) are judged by their own 'q8-row' rows.
import { FILE_TYPE_Q8_ROW } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { POLICY, policyRow, tierOf, type Tier } from '../src/parity.js';

const TIERS: readonly Tier[] = ['f32', 'f16', 'q8', 'q8-row', 'low-bit'];

describe('parity tiers', () => {
  it('maps general.file_type to its tier', () => {
    expect(FILE_TYPE_Q8_ROW).toBe(1000);
    expect([null, 0, 1, 32, 7, FILE_TYPE_Q8_ROW, 2, 15].map(tierOf)).toEqual(['f32', 'f32', 'f16', 'f16', 'q8', 'q8-row', 'low-bit', 'low-bit']);
  });

  it('has exactly one row per backend, family class and tier', () => {
    for (const backend of ['cpu', 'gpu'] as const)
      for (const familyClass of ['image', 'video'] as const)
        for (const tier of TIERS)
          expect(POLICY.filter((r) => r.backend === backend && r.familyClass === familyClass && r.tier === tier)).toHaveLength(1);
    expect(POLICY).toHaveLength(2 * 2 * TIERS.length);
  });

  it("q8-row is gated (not advisory): q8's bars, but the CPU image pooled bar at 0.995 (measured, docs/quantization.md)", () => {
    for (const backend of ['cpu', 'gpu'] as const)
      for (const familyClass of ['image', 'video'] as const) {
        const { tier: _a, ...q8row } = policyRow(backend, familyClass, 'q8-row');
        const { tier: _b, ...q8 } = policyRow(backend, familyClass, 'q8');
        const cpuImage = backend === 'cpu' && familyClass === 'image';
        expect(q8row).toEqual(cpuImage ? { ...q8, pooledCos: 0.995 } : q8);
        expect(q8row.advisory).toBe(false);
      }
  });
});
