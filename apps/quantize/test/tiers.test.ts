// Quantized reference models meet their parity tier against the float64 goldens, and jepa-quantize's
// f16 is byte-identical to the converter's --dtype f16.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { compareTokens, cosine, judge, Model, policyRow } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { FIXTURE_TABLE, npy } from '../../../packages/convert/test/reference-cases.js';
import { quantizeFile } from '../src/quantize-file.js';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-quantize-tiers-'));

describe.each(FIXTURE_TABLE)('$folder', (f) => {
  it('q8_0 meets the q8 tier; f16 is byte-identical to the converter', async () => {
    const f32 = join(tmp, `${f.folder}-f32.gguf`);
    const f16 = join(tmp, `${f.folder}-f16.gguf`);
    await convertCheckpoint(f.src, f32, { ...f.options, dtype: 'f32' });
    await convertCheckpoint(f.src, f16, { ...f.options, dtype: 'f16' });
    const q8 = join(tmp, `${f.folder}-q8_0.gguf`);
    const f16q = join(tmp, `${f.folder}-f16q.gguf`);
    await quantizeFile(f32, q8, 'q8_0');
    await quantizeFile(f32, f16q, 'f16');
    expect(readFileSync(f16q).equals(readFileSync(f16))).toBe(true);

    const c = f.cases[0]!;
    const model = await Model.load(q8, { threads: 2 });
    const out = await model.createContext().encode(npy(f.folder, c.input));
    const v = judge(
      policyRow('cpu', f.familyClass, 'q8'),
      compareTokens(out.tokens, npy(f.folder, c.lastHiddenState).data, out.dim),
      cosine(out.pool(f.pool), npy(f.folder, c.pooled).data),
    );
    console.log(`${f.folder} q8_0: ${v.summary}`);
    expect(v.failures).toEqual([]);
    model.dispose();
  });
});
