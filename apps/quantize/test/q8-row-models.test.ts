// A whole q8_row model (encoder, attentive classifier head, masked predictor): every i8 matrix either has
// a panel or, where its rows are not whole panels (the 5-class head), is dequantized to f16; the outputs
// stay next to the f32 model's, and the same file without panels (JEPA_PANEL=0) agrees with them.
import { join } from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expectedTensors, forgeModel, GgmlType, loadModelSpec } from '@jepa/gguf';
import { compareTokens, cosine, Model, predictorTokens } from '@jepa/graph';
import { buildInfo } from '@jepa/native';
import { describe, expect, it } from 'vitest';
import { quantizeFile } from '../src/quantize-file.js';
import { withEnv } from './with-env.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-q8-row-models-'));
const clip = { data: Float32Array.from({ length: 3 * 4 * 8 * 8 }, (_, i) => Math.sin(i * 0.3) * 1.5), shape: [1, 3, 4, 8, 8] };

/**
 * Forged weights are uniform, so every row of a matrix has about the same scale and a row-scale mix-up
 * would go unseen: each matmul row r is scaled by 0.25 + (r % 7) / 3 in place first.
 */
function unevenRows(path: string): void {
  const spec = loadModelSpec(path);
  const bytes = readFileSync(path);
  for (const t of expectedTensors(spec)) {
    const info = spec.tensors.get(t.name);
    if (t.role !== 'matmul' || !info || info.type !== GgmlType.F32) continue;
    const [k, rows] = [info.shape[0]!, info.shape[1]!];
    const w = new Float32Array(bytes.buffer, bytes.byteOffset + info.offset, k * rows);
    for (let r = 0; r < rows; r++) for (let j = 0; j < k; j++) w[r * k + j]! *= 0.25 + (r % 7) / 3;
  }
  writeFileSync(path, bytes);
}

async function outputs(path: string) {
  const model = await Model.load(path, { threads: 2 });
  try {
    const tokens = await model.createContext().encode(clip);
    const [logits] = await model.createHeadContext().logits(tokens);
    const input = { ...predictorTokens(tokens), contextIds: [0, 1, 2, 5], targetIds: [3, 4] };
    const predicted = await model.createPredictorContext().predict(input);
    const i8 = [...model.spec.tensors.values()].filter((t) => t.type === GgmlType.I8);
    const weight = (name: string) => model.weights.get(name);
    return {
      tokens,
      logits: logits!,
      targets: predicted.targets,
      // on q8_row panels: a matrix dequantized to f16 may take the f16 panels instead
      panelled: i8.filter((t) => weight(t.name).type === GgmlType.I8 && model.weights.panel(t.name)).map((t) => t.name),
      dequantized: i8.filter((t) => weight(t.name).type === GgmlType.F16).map((t) => t.name),
      i8: i8.map((t) => t.name),
    };
  } finally {
    model.dispose();
  }
}

describe('a q8_row V-JEPA 2 with its head and predictor', () => {
  it('runs every matrix on a panel or dequantized, near the f32 model, with or without panels', async () => {
    const f32 = forgeModel('vjepa2', { seed: 3, path: join(tmp, 'vjepa2-f32.gguf') }).path;
    unevenRows(f32);
    const rows = join(tmp, 'vjepa2-q8_row.gguf');
    await quantizeFile(f32, rows, 'q8_row');
    const ref = await outputs(f32);
    const mine = await outputs(rows);

    expect(mine.i8.length).toBeGreaterThan(10);
    expect(mine.i8.some((n) => n.startsWith('head.'))).toBe(true);
    expect(mine.i8.some((n) => n.startsWith('pred.'))).toBe(true);
    // rows that are not whole 16-row panels (the 5 classes) take the f16 path even where panels run
    const ragged = mine.i8.filter((n) => !mine.panelled.includes(n));
    if (buildInfo().panelKernelRows) {
      expect(mine.panelled.length).toBeGreaterThan(0);
      expect(ragged.length).toBeGreaterThan(0);
    } else {
      expect(mine.panelled).toEqual([]);
    }
    expect(mine.dequantized.sort()).toEqual(ragged.sort());

    expect(compareTokens(mine.tokens.tokens, ref.tokens.tokens, ref.tokens.dim).minCos).toBeGreaterThan(0.99);
    expect(cosine(mine.logits, ref.logits)).toBeGreaterThan(0.99);
    expect(compareTokens(mine.targets, ref.targets, ref.tokens.dim).minCos).toBeGreaterThan(0.99);

    const plain = await withEnv({ JEPA_PANEL: '0' }, () => outputs(rows));
    expect(plain.panelled).toEqual([]);
    expect(plain.dequantized.sort()).toEqual([...mine.i8].sort());
    expect(compareTokens(plain.tokens.tokens, mine.tokens.tokens, ref.tokens.dim).minCos).toBeGreaterThan(0.99);
    expect(cosine(plain.logits, mine.logits)).toBeGreaterThan(0.99);
  });
});
