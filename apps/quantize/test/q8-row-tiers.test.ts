// q8_row on every reference fixture: it meets its parity tier against the float64 goldens on the panel
// kernels and on the dequantized F16 path (the one a GPU takes), the two kernels give the same bits
// end to end, and a file whose row scales are shuffled fails the tier.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { GgmlType, loadModelSpec } from '@jepa/gguf';
import { compareTokens, cosine, judge, Model, policyRow } from '@jepa/graph';
import { buildInfo } from '@jepa/native';
import { describe, expect, it } from 'vitest';
import { FIXTURE_TABLE, npy } from '@jepa/testing';
import { quantizeFile } from '../src/quantize-file.js';
import { withEnv } from './with-env.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-q8-row-tiers-'));

async function encodeFixture(path: string, f: (typeof FIXTURE_TABLE)[number]) {
  const model = await Model.load(path, { threads: 2 });
  try {
    const out = await model.createContext().encode(npy(f.folder, f.cases[0]!.input));
    // q8_row panels only: a matrix dequantized to f16 may take the f16 panels instead
    const panels = [...model.spec.tensors.values()].filter(
      (t) => t.type === GgmlType.I8 && model.weights.get(t.name).type === GgmlType.I8 && model.weights.panel(t.name),
    ).length;
    return { out, panels };
  } finally {
    model.dispose();
  }
}

async function judgeFixture(path: string, f: (typeof FIXTURE_TABLE)[number], label: string) {
  const c = f.cases[0]!;
  const { out, panels } = await encodeFixture(path, f);
  const v = judge(
    policyRow('cpu', f.familyClass, 'q8-row'),
    compareTokens(out.tokens, npy(f.folder, c.lastHiddenState).data, out.dim),
    cosine(out.pool(f.pool), npy(f.folder, c.pooled).data),
  );
  console.log(`${f.folder} q8_row ${label}: ${v.summary}`);
  return { v, out, panels };
}

/** A copy of a q8_row file with each matrix's row scales reversed: every weight row is mis-scaled. */
function shuffleScales(path: string, to: string): void {
  const bytes = readFileSync(path);
  for (const t of loadModelSpec(path).tensors.values()) {
    if (!t.name.endsWith('.scale')) continue;
    const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + t.offset, bytes.byteOffset + t.offset + t.nbytes));
    Buffer.from(scales.reverse().buffer).copy(bytes, t.offset);
  }
  writeFileSync(to, bytes);
}

describe.each(FIXTURE_TABLE)('$folder', (f) => {
  it('q8_row meets the q8-row tier on the panels and dequantized; shuffled row scales fail it', async () => {
    const f32 = join(tmp, `${f.folder}-f32.gguf`);
    const rows = join(tmp, `${f.folder}-q8_row.gguf`);
    await convertCheckpoint(f.src, f32, { ...f.options, dtype: 'f32' });
    await quantizeFile(f32, rows, 'q8_row');

    const panelled = await judgeFixture(rows, f, buildInfo().panelKernelRows ?? 'dequantized (no kernel)');
    expect(panelled.v.failures).toEqual([]);
    expect(panelled.panels > 0).toBe(!!buildInfo().panelKernelRows);
    const dequantized = await withEnv({ JEPA_PANEL: '0' }, () => judgeFixture(rows, f, 'dequantized to f16'));
    expect(dequantized.v.failures).toEqual([]);
    expect(dequantized.panels).toBe(0);

    const shuffled = join(tmp, `${f.folder}-q8_row-shuffled.gguf`);
    shuffleScales(rows, shuffled);
    expect((await judgeFixture(shuffled, f, 'scales shuffled (control)')).v.failures).not.toEqual([]);
  });
});

// Every q8_row kernel this CPU runs (AMX, AVX-512 VNNI, AVX-VNNI, plain AVX2) gives the best one's bits.
const otherKernels = buildInfo().panelKernelsRows.slice(1);
describe.skipIf(otherKernels.length === 0)(`q8_row on ${buildInfo().panelKernelsRows.join(', ')}`, () => {
  it.each(['hfvit', 'vjepa2'])('%s: the same bits end to end', async (folder) => {
    const f = FIXTURE_TABLE.find((x) => x.folder === folder)!;
    const rows = join(tmp, `${f.folder}-q8_row.gguf`);
    await convertCheckpoint(f.src, join(tmp, `${folder}-kernels-f32.gguf`), { ...f.options, dtype: 'f32' });
    await quantizeFile(join(tmp, `${folder}-kernels-f32.gguf`), rows, 'q8_row');
    const best = await encodeFixture(rows, f);
    expect(best.panels).toBeGreaterThan(0);
    for (const kernel of otherKernels) {
      const other = await withEnv({ JEPA_PANEL: kernel }, () => encodeFixture(rows, f));
      expect(other.panels, kernel).toBe(best.panels);
      expect(Buffer.from(other.out.tokens.buffer).equals(Buffer.from(best.out.tokens.buffer)), kernel).toBe(true);
    }
  });
});
