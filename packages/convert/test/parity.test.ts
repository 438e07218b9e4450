// The converter is right only if the converted model is: every reference fixture is converted, run by
// the engine and judged against its float64 golden with the parity policy (f32 and f16 rows). The
// same judge must fail the recorded wrong-model outputs and a converted file with one weight +1 %.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectedTensors, GgmlType, loadModelSpec } from '@jepa/gguf';
import { compareTokens, cosine, judge, Model, policyRow, type EncodeOutput, type Verdict } from '@jepa/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint, type WeightDtype } from '../src/index.js';
import { FIXTURE_TABLE, NEGATIVE_CONTROLS, npy, type GoldenCase, type ReferenceFixture } from '@jepa/testing';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-convert-parity-'));
const THREADS = 2;
const converted = new Map<string, string>();
const models: Model[] = [];

function ggufPath(folder: string, dtype: WeightDtype): string {
  return join(OUT, `${folder}-${dtype}.gguf`);
}

beforeAll(async () => {
  for (const f of FIXTURE_TABLE) {
    for (const dtype of ['f32', 'f16'] as const) {
      await convertCheckpoint(f.src, ggufPath(f.folder, dtype), { ...f.options, dtype });
      converted.set(`${f.folder}:${dtype}`, ggufPath(f.folder, dtype));
    }
  }
});

afterAll(() => {
  for (const m of models) m.dispose();
});

async function encode(path: string, c: GoldenCase, folder: string): Promise<EncodeOutput> {
  const model = await Model.load(path, { threads: THREADS });
  models.push(model);
  const ctx = model.createContext();
  try {
    return await ctx.encode(npy(folder, c.input));
  } finally {
    ctx.dispose();
  }
}

function verdict(f: ReferenceFixture, dtype: WeightDtype, out: EncodeOutput, expectedTokens: Float32Array, expectedPooled: Float32Array): Verdict {
  const metrics = compareTokens(out.tokens, expectedTokens, out.dim);
  return judge(policyRow('cpu', f.familyClass, dtype === 'f32' ? 'f32' : 'f16'), metrics, cosine(out.pool(f.pool), expectedPooled));
}

describe.each(FIXTURE_TABLE)('$folder', (f) => {
  for (const dtype of ['f32', 'f16'] as const) {
    it.each(f.cases)(`${dtype} $input matches the golden`, async (c) => {
      const out = await encode(converted.get(`${f.folder}:${dtype}`)!, c, f.folder);
      const v = verdict(f, dtype, out, npy(f.folder, c.lastHiddenState).data, npy(f.folder, c.pooled).data);
      console.log(`${f.folder} ${c.input} ${dtype}: ${v.summary}`);
      expect(v.failures).toEqual([]);
    });
  }

  it('writes matmul weights as f16 and everything else as f32 in the f16 file', () => {
    const spec = loadModelSpec(converted.get(`${f.folder}:f16`)!);
    expect(spec.fileType).toBe(1);
    const types = expectedTensors(spec).map((t) => [t.name, t.role === 'matmul' ? GgmlType.F16 : GgmlType.F32]);
    expect(types.filter(([, type]) => type === GgmlType.F16).length).toBeGreaterThan(0);
    expect([...spec.tensors.values()].map((t) => [t.name, t.type])).toEqual(types);
  });
});

describe('negative controls fail the same judge', () => {
  it.each(NEGATIVE_CONTROLS)('$folder $control', async (n) => {
    const f = FIXTURE_TABLE.find((x) => x.folder === n.folder)!;
    const out = await encode(converted.get(`${f.folder}:f32`)!, n.case, f.folder);
    const pooled = npy(f.folder, n.pooledControl ?? n.case.pooled).data;
    const v = verdict(f, 'f32', out, npy(f.folder, n.control).data, pooled);
    console.log(`${n.folder} control ${n.control}: ${v.summary}`);
    expect(v.pass).toBe(false);
  });

  /** A copy of the converted file with one f32 tensor scaled by `factor`. */
  function perturbedCopy(path: string, tensor: string, factor: number): string {
    const info = loadModelSpec(path).tensors.get(tensor)!;
    expect(info.type).toBe(GgmlType.F32);
    const bytes = readFileSync(path);
    const values = new Float32Array(bytes.buffer, bytes.byteOffset + info.offset, info.nbytes / 4);
    for (let i = 0; i < values.length; i++) values[i]! *= factor;
    const copy = path.replace(/\.gguf$/, '-perturbed.gguf');
    writeFileSync(copy, bytes);
    return copy;
  }

  it.each(FIXTURE_TABLE)('$folder with block 0 MLP in-projection +1 %', async (f) => {
    const c = f.cases[0]!;
    const path = converted.get(`${f.folder}:f32`)!;
    const fc1 = loadModelSpec(path).enc.ffnKind === 'swiglu' ? 'enc.blk.0.ffn.w12.weight' : 'enc.blk.0.ffn.fc1.weight';
    const copy = perturbedCopy(path, fc1, 1.01);
    const out = await encode(copy, c, f.folder);
    const v = verdict(f, 'f32', out, npy(f.folder, c.lastHiddenState).data, npy(f.folder, c.pooled).data);
    console.log(`${f.folder} perturbed: ${v.summary}`);
    expect(v.pass).toBe(false);
  });
});
