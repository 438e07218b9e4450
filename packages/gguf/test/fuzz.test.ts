import { describe, expect, it } from 'vitest';
import { runFuzz, runInput } from '../src/fuzz/campaign.js';
import { MUTATOR_NAMES } from '../src/fuzz/mutate.js';

describe('mutation fuzzer over reader + validator', () => {
  it('a fixed-seed run of 2500 inputs ends with every input loaded or refused by a GgufError', () => {
    const stats = runFuzz({ seed: 20261129, inputs: 2500, slowMs: 1000 });
    expect(stats.inputs).toBe(2500);
    expect(stats.findings.map((f) => `${f.kind} ${f.mutator}: ${f.detail}`)).toEqual([]);
    const refused = Object.values(stats.refused).reduce((a, b) => a + b, 0);
    expect(stats.loaded + refused).toBe(2500);
    expect(stats.loaded).toBeGreaterThan(0);
    expect(Object.keys(stats.refused).length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(stats.byMutator).sort()).toEqual([...MUTATOR_NAMES].sort());
    expect(stats.maxInputMs).toBeLessThan(1000);
  });

  it('is deterministic: the same seed yields the same outcomes', () => {
    const a = runFuzz({ seed: 99, inputs: 300 });
    const b = runFuzz({ seed: 99, inputs: 300 });
    expect(a.refused).toEqual(b.refused);
    expect(a.byMutator).toEqual(b.byMutator);
    expect(runFuzz({ seed: 100, inputs: 300 }).byMutator).not.toEqual(a.byMutator);
  });

  it('records an exception that is not a GgufError as a crash finding (negative control)', () => {
    let n = 0;
    const stats = runFuzz({
      seed: 3,
      inputs: 50,
      target: (bytes) => {
        if (++n === 17) throw new RangeError('planted');
        return runInput(bytes);
      },
    });
    expect(stats.findings).toHaveLength(1);
    expect(stats.findings[0]).toMatchObject({ index: 16, kind: 'crash' });
    expect(stats.findings[0].detail).toContain('planted');
  });

  it('flags a target that reads far more than the input (negative control for over-reading)', () => {
    const stats = runFuzz({ seed: 4, inputs: 5, target: (bytes) => ({ ...runInput(bytes), bytesRead: bytes.byteLength * 100 + 1e6 }) });
    expect(stats.findings.every((f) => f.kind === 'overread')).toBe(true);
    expect(stats.findings).toHaveLength(5);
  });
});
