// A quantized LeWorldModel still plans: the fixture's predictor rollout at q8_0 (through the panel
// kernels where the CPU has them) meets the q8 tier against the float64 reference.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { WorldModel } from '@jepa/worldmodel';
import { describe, expect, it } from 'vitest';
import { quantizeFile } from '../src/quantize-file.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/reference-heads/lewm');
const f32 = (name: string) => readNpy(join(dir, `${name}.npy`)).data as Float32Array;

describe('LeWM at q8_0', () => {
  it('rollout meets the q8 tier against the float64 reference', async () => {
    const q8 = join(mkdtempSync(join(tmpdir(), 'jepa-lewm-q8-')), 'lewm-q8_0.gguf');
    await quantizeFile(join(dir, 'model.gguf'), q8, 'q8_0');
    const wm = await WorldModel.load(q8, { threads: 2 });
    const out = await wm.rollout(
      { data: f32('rollout_initial'), candidates: 1, steps: 1 },
      { data: f32('rollout_actions'), candidates: 4, steps: 5 },
    );
    const v = judge(policyRow('cpu', 'image', 'q8'), compareTokens(out, f32('rollout_out'), wm.embedDim));
    console.log(`lewm q8_0 rollout ${v.summary}`);
    expect(v.failures).toEqual([]);
    wm.dispose();
  });
});
