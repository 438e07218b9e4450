// The reference fixtures on a GPU, judged by the GPU rows of the parity policy (rel_max gated in
// every cell), and one node the GPU backend cannot run refused by name. Skips without a GPU build
// and device; on a GPU machine: JEPA_CUDA=1 pnpm --filter @jepa/addon build, then pnpm test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareTokens, cosine, judge, Model, policyRow } from '@jepa/graph';
import { createContext, devices, openBackend } from '@jepa/native';
import { describe, expect, it } from 'vitest';
import { convertCheckpoint } from '../src/index.js';
import { FIXTURE_TABLE, npy } from './reference-cases.js';

const hasGpu = devices().some((d) => d.type === 'gpu');
const OUT = mkdtempSync(join(tmpdir(), 'jepa-gpu-parity-'));

describe.skipIf(!hasGpu)('on the GPU', () => {
  for (const f of FIXTURE_TABLE) {
    for (const dtype of ['f32', 'f16'] as const) {
      it(`${f.folder} ${dtype} meets the GPU tier and agrees with the CPU`, async () => {
        const path = join(OUT, `${f.folder}-${dtype}.gguf`);
        await convertCheckpoint(f.src, path, { ...f.options, dtype });
        const c = f.cases[0]!;
        const gpu = await Model.load(path, { device: 'cuda:0' });
        const out = await gpu.createContext().encode(npy(f.folder, c.input));
        const v = judge(
          policyRow('gpu', f.familyClass, dtype),
          compareTokens(out.tokens, npy(f.folder, c.lastHiddenState).data, out.dim),
          cosine(out.pool(f.pool), npy(f.folder, c.pooled).data),
        );
        console.log(`${f.folder} ${dtype} gpu: ${v.summary}`);
        expect(v.failures).toEqual([]);
        gpu.dispose();
      });
    }
  }

  it('graph validation names a node the GPU backend cannot run', () => {
    const backend = openBackend({ device: 'cuda:0', threads: 1 });
    const ctx = createContext(8);
    // an i32 x i32 product: no backend multiplies integers
    const a = ctx.newTensor(26, [16, 4]);
    const b = ctx.newTensor(26, [16, 3]);
    const out = ctx.mulMat(a, b);
    out.name = 'int_scores';
    const graph = ctx.buildGraph([out]);
    expect(() => graph.validate(backend)).toThrowError(
      expect.objectContaining({ code: 'UNSUPPORTED_OP', message: expect.stringMatching(/'int_scores' MUL_MAT/) }),
    );
    backend.dispose();
  });
});
